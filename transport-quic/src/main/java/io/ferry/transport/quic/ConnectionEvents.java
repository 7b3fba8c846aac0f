package io.ferry.transport.quic;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionCloseEvent;

import java.io.IOException;
import java.net.SocketAddress;

/**
 * The handler on a QUIC connection: remembers how the peer closed it (its CONNECTION_CLOSE) and, when the
 * connection ends, tells the channels it carries why, in the words a Ferry channel uses.
 */
final class ConnectionEvents extends ChannelInboundHandlerAdapter {

    private QuicConnectionCloseEvent peerClose;
    /** The peer's address while the connection was up: a closed QUIC channel no longer tells it. */
    private SocketAddress peer;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        peer = ((QuicChannel) ctx.channel()).remoteSocketAddress();
        ctx.fireChannelActive();
    }

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
        QuicConnection connection = QuicConnection.of(quic);
        if (connection != null) {
            QuicConnectionCloseEvent e = peerClose;
            boolean peerHasAll = e != null && e.isApplicationClose() && e.error() == QuicTransport.NO_ERROR;
            boolean peerGone = e != null && e.isApplicationClose() && e.error() == QuicTransport.GONE;
            connection.ended(why(quic), peerHasAll, peerGone);
        }
        ctx.fireChannelInactive();
    }

    /** Errors of a connection reach its channel through its end ({@link #channelInactive}). */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    }

    /** Why the connection ended; null when the peer closed it without an error (or this end closed it). */
    private IOException why(QuicChannel quic) {
        SocketAddress peer = quic.remoteSocketAddress() != null ? quic.remoteSocketAddress() : this.peer;
        if (quic.isTimedOut()) {
            return new IOException("the QUIC connection to " + peer + " timed out: nothing heard within its idle timeout");
        }
        QuicConnectionCloseEvent e = peerClose;
        if (e == null) {
            return null;
        }
        if (e.isTlsError()) {
            int alert = QuicConnectionCloseEvent.extractTlsError(e.error());
            return new javax.net.ssl.SSLHandshakeException("TLS alert " + alertName(alert) + " (" + alert + ") from the QUIC peer "
                    + peer + ": the TLS handshake failed");
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

    /** The name RFC 8446 section 6 gives a TLS alert, or "unknown". */
    static String alertName(int alert) {
        return switch (alert) {
            case 40 -> "handshake_failure";
            case 42 -> "bad_certificate";
            case 43 -> "unsupported_certificate";
            case 44 -> "certificate_revoked";
            case 45 -> "certificate_expired";
            case 46 -> "certificate_unknown";
            case 48 -> "unknown_ca";
            case 49 -> "access_denied";
            case 51 -> "decrypt_error";
            case 70 -> "protocol_version";
            case 80 -> "internal_error";
            case 109 -> "missing_extension";
            case 112 -> "unrecognized_name";
            case 116 -> "certificate_required";
            case 120 -> "no_application_protocol";
            default -> "unknown";
        };
    }
}
