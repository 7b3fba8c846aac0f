package io.ferry.transport.tcp;

import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.epoll.EpollTcpInfo;
import io.netty.util.AttributeKey;

/**
 * The kernel's {@code TCP_INFO} figures Ferry reports for a connection, kept on the channel each time
 * they are read, so that statistics asked for after the socket closed (when the kernel has none left)
 * show the last ones known rather than nothing. A close started here reads them once more first.
 */
record TcpInfoSnapshot(long rttMicros, long rttVarianceMicros, long congestionWindowBytes, long retransmissions, long lost) {

    private static final AttributeKey<TcpInfoSnapshot> LAST = AttributeKey.valueOf(TcpInfoSnapshot.class, "last");

    /** Reads {@code TCP_INFO} while the socket is open (and remembers it); the last one read otherwise, or null. */
    static TcpInfoSnapshot of(Channel channel) {
        if (channel instanceof EpollSocketChannel && channel.isOpen()) {
            try {
                EpollTcpInfo info = ((EpollSocketChannel) channel).tcpInfo();
                TcpInfoSnapshot now = new TcpInfoSnapshot(info.rtt(), info.rttvar(), info.sndCwnd() * info.sndMss(),
                        info.totalRetrans(), info.lost());
                channel.attr(LAST).set(now);
                return now;
            } catch (ChannelException closedMeanwhile) {
                // fall back to the last one read
            }
        }
        return channel.attr(LAST).get();
    }
}
