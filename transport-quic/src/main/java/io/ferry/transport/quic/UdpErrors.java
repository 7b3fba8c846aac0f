package io.ferry.transport.quic;

import io.ferry.transport.udp.SendErrors;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.net.ConnectException;

/**
 * Last on a client's UDP socket, which is connected to the peer so that the kernel reports an ICMP "port
 * unreachable" (from a receive, or as {@code ECONNREFUSED} from a send): a connect then fails at once with
 * {@link ConnectException}, as TCP's does.
 */
final class UdpErrors extends ChannelInboundHandlerAdapter {

    private final QuicSocketChannel channel;

    UdpErrors(QuicSocketChannel channel) {
        this.channel = channel;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (SendErrors.isPortUnreachable(cause) && channel.isConnecting()) {
            channel.connectFailed(new ConnectException("Connection refused: " + channel.remote()));
        }
        // otherwise the QUIC connection's own timers and its idle timeout decide
    }
}
