package io.ferry.transport.quic;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionCloseEvent;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * The handler on a QUIC connection: remembers how the peer closed it (its CONNECTION_CLOSE) and, when the
 * connection ends, tells the channel that presents it why, in the words a Ferry channel uses.
 */
final class ConnectionEvents extends ChannelInboundHandlerAdapter {

    private QuicConnectionCloseEvent peerClose;

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof QuicConnectionCloseEvent close) {
            peerClose = close;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        QuicChannel quic = (QuicChannel) ctx.channel();
        QuicSocketChannel owner = quic.attr(QuicSocketChannel.OWNER).get();
        if (owner != null) {
            QuicConnectionCloseEvent e = peerClose;
            boolean peerHasAll = e != null && e.isApplicationClose() && e.error() == QuicTransport.NO_ERROR;
            boolean peerGone = e != null && e.isApplicationClose() && e.error() == QuicTransport.GONE;
            owner.connectionClosed(why(quic), peerHasAll, peerGone);
        }
        ctx.fireChannelInactive();
    }

    /** Errors of a connection reach its channel through its end ({@link #channelInactive}). */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    }

    /** Why the connection ended; null when the peer closed it without an error (or this end closed it). */
    private IOException why(QuicChannel quic) {
        SocketAddress peer = quic.remoteSocketAddress();
        if (quic.isTimedOut()) {
            return new IOException("the QUIC connection to " + peer + " timed out: nothing heard within its idle timeout");
        }
        QuicConnectionCloseEvent e = peerClose;
        if (e == null) {
            return null;
        }
        if (e.isTlsError()) {
            return new IOException("the QUIC connection to " + peer + " failed its TLS handshake (TLS alert "
                    + QuicConnectionCloseEvent.extractTlsError(e.error()) + ")");
        }
        if (!e.isApplicationClose()) {
            return e.error() == 0 ? null : new IOException("the QUIC connection to " + peer + " ended with transport error 0x"
                    + Integer.toHexString(e.error()));
        }
        switch (e.error()) {
            case QuicTransport.NO_ERROR:
            case QuicTransport.GONE:
                return null;
            case QuicTransport.ABORTED:
                return new IOException("Connection reset by peer: " + peer + " aborted the QUIC connection");
            case QuicTransport.STOPPED:
                return new IOException("Connection reset by peer: " + peer + " closed without reading everything");
            case QuicTransport.REFUSED:
                return new java.net.ConnectException("Connection refused: " + peer + " is not accepting QUIC connections");
            default:
                return new IOException("the QUIC connection to " + peer + " ended with application error " + e.error());
        }
    }
}
