package io.ferry.transport.ledbat.channel;

import io.ferry.transport.ledbat.core.UtpException;
import io.netty.channel.ConnectTimeoutException;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;

/** How the protocol core's reasons for ending a connection reach the application: as the exceptions a socket channel raises. */
final class UtpChannelErrors {

    private UtpChannelErrors() {
    }

    /** A refusal as {@link ConnectException}, a reset as "Connection reset by peer", the rest as plain {@link IOException}. */
    static IOException asIoException(UtpException e) {
        switch (e.reason()) {
            case CONNECTION_REFUSED:
                ConnectException refused = new ConnectException("Connection refused by the uTP peer: " + e.getMessage());
                refused.initCause(e);
                return refused;
            case RESET_BY_PEER:
                return new IOException("Connection reset by peer: " + e.getMessage(), e);
            default:
                return new IOException(e.getMessage(), e);
        }
    }

    /** Why a connect to {@code remote} failed, given the core's close cause (null: closed locally). */
    static Throwable connectFailure(Throwable causeOrNull, InetSocketAddress remote) {
        if (causeOrNull instanceof UtpException e) {
            return e.reason() == UtpException.Reason.CONNECT_TIMEOUT
                    ? new ConnectTimeoutException("connection timed out: " + remote) : asIoException(e);
        }
        return causeOrNull == null ? new ClosedChannelException() : causeOrNull;
    }

    /** What the pipeline's exceptionCaught gets for a connection that failed after it was established. */
    static Throwable afterEstablished(Throwable cause) {
        return cause instanceof UtpException e ? asIoException(e) : cause;
    }
}
