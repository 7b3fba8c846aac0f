package io.ferry.transport.udp;

import io.netty.channel.unix.Errors;

import java.net.PortUnreachableException;

/**
 * What a failed UDP send or receive means to an endpoint. A connected UDP socket reports an ICMP error on
 * its next call, whichever it is (Linux {@code udp(7)}, "Error handling"): a receive, which Netty turns
 * into {@link PortUnreachableException}, or a send, which epoll reports as a native
 * {@code ECONNREFUSED}. Both are the same refusal. Route errors are the path's, not the socket's.
 */
public final class SendErrors {

    private SendErrors() {
    }

    /** Whether {@code cause} says the connected peer's port is unreachable (ICMP port unreachable). */
    public static boolean isPortUnreachable(Throwable cause) {
        // NativeIoException only exists where the native transport is loaded, so Errors is safe to read here
        return cause instanceof PortUnreachableException
                || cause instanceof Errors.NativeIoException e && e.expectedErr() == Errors.ERROR_ECONNREFUSED_NEGATIVE;
    }

    /**
     * Whether a refused GSO send failed for reasons of its peer or route (the same would befall a plain
     * datagram), not because the kernel or device cannot segment it ({@code EIO}, {@code EINVAL}).
     */
    public static boolean isPathError(Throwable cause) {
        if (isPortUnreachable(cause)) {
            return true;
        }
        return cause instanceof Errors.NativeIoException e
                && (e.expectedErr() == Errors.ERROR_ENETUNREACH_NEGATIVE || e.expectedErr() == Errors.ERROR_EHOSTUNREACH_NEGATIVE);
    }
}
