package io.ferry.cli.transfer;

import io.ferry.cli.progress.Sizes;
import io.ferry.transport.striped.NoGreetingException;
import io.ferry.transport.striped.NotStripedException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;

import javax.net.ssl.SSLException;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.security.cert.CertificateException;

/** Turns exceptions into the one line a user reads. */
public final class Failures {

    private Failures() {
    }

    /** Whether an I/O error means the disk (or quota) is full. */
    public static boolean isDiskFull(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && (m.contains("No space left on device") || m.contains("Disk quota exceeded") || m.contains("not enough space"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The TLS alert by which a receiver refused a sender's certificate (or its lack of one), lower case, or
     * null for another failure. The JDK writes {@code Received fatal alert: bad_certificate} (JDK 25 with
     * {@code (bad_certificate)} in front); BoringSSL, the TLS of ferry.jar where netty-tcnative loads,
     * {@code ...:SSLV3_ALERT_BAD_CERTIFICATE} and {@code ...:TLSV1_ALERT_CERTIFICATE_REQUIRED}.
     */
    static String senderRefusal(String why) {
        String lower = why.toLowerCase(java.util.Locale.ROOT);
        for (String alert : new String[]{"certificate_required", "bad_certificate", "certificate_unknown", "access_denied"}) {
            if (lower.contains(alert)) {
                return alert;
            }
        }
        return null;
    }

    /** The reason of a file-system error without the exception class, e.g. {@code No space left on device}. */
    public static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof FileSystemException && ((FileSystemException) e).getReason() != null) {
            return ((FileSystemException) e).getReason();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** Why a directory could not be made or used, in a user's words ({@code a file of that name is in the way}). */
    public static String directoryProblem(IOException e) {
        if (e instanceof java.nio.file.FileAlreadyExistsException) {
            String in = ((java.nio.file.FileAlreadyExistsException) e).getFile();
            return "a file is in the way" + (in == null ? "" : " (" + in + " is not a directory)");
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied" + (((FileSystemException) e).getFile() == null ? "" : " (" + ((FileSystemException) e).getFile() + ")");
        }
        if (e instanceof NoSuchFileException) {
            return "it cannot be created there";
        }
        return reason(e);
    }

    /** {@code host:port} of a socket address, without Java's {@code name/address} doubling. */
    public static String address(java.net.SocketAddress address) {
        if (address instanceof java.net.InetSocketAddress) {
            java.net.InetSocketAddress a = (java.net.InetSocketAddress) address;
            String host = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
        }
        return String.valueOf(address);
    }

    /** What a listener that did not greet as a ferry receiver answered, as the words after its name. */
    public static String notFerry(NotStripedException e) {
        String answered = e.answered();
        return "is not a ferry receiver: it does not speak the ferry protocol ("
                + (answered.isEmpty() ? "it closed the connection" : "it sent '" + answered + "'") + ")";
    }

    /** What a listener that accepted the connection and said nothing answered, as the words after its name. */
    public static String notFerry(NoGreetingException e) {
        return "is not a ferry receiver: it accepted the connection and then said nothing for "
                + Sizes.seconds(e.waited().toNanos() / 1e9) + " (a ferry receiver answers at once)";
    }

    /**
     * Whether {@link #describe} names the cause in a user's words (TLS, a refusal, a peer that is not a
     * ferry receiver), so that nothing needs adding about what else might have closed the connection.
     */
    public static boolean explains(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof NotStripedException || c instanceof NoGreetingException || c instanceof SSLException
                    || c instanceof CertificateException) {
                return true;
            }
        }
        return false;
    }

    /**
     * How a connection that was up was lost, in a user's words ({@code closed the connection (connection
     * reset)}), or null for another failure: a reset or a broken pipe (the peer's process died, over TCP),
     * or a transport that heard nothing for its idle timeout.
     */
    public static String connectionLost(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            String m = String.valueOf(c.getMessage()).toLowerCase(java.util.Locale.ROOT);
            if (m.contains("connection reset")) {
                return "closed the connection (connection reset)";
            }
            if (m.contains("broken pipe")) {
                return "closed the connection (broken pipe)";
            }
            if (m.contains("idle timeout") || m.contains("went silent") || m.contains("timed out")) {
                return "stopped answering (" + c.getMessage() + ")";
            }
        }
        return null;
    }

    /** A network-side failure, with TLS problems and a peer that is not a ferry receiver spelled out. */
    public static String describe(Throwable e) {
        return describe(e, null);
    }

    /**
     * {@link #describe(Throwable)}, for a sender that presented the certificate with this fingerprint
     * ({@code sha256:HEX}, or null): a receiver that refuses it is told which fingerprint to allow.
     */
    public static String describe(Throwable e, String senderFingerprint) {
        Throwable t = e instanceof DecoderException && e.getCause() != null ? e.getCause() : e;
        Throwable ssl = null;
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof NotStripedException) {
                return "the peer " + notFerry((NotStripedException) c);
            }
            if (c instanceof NoGreetingException) {
                return "the peer " + notFerry((NoGreetingException) c);
            }
            if (c instanceof NotSslRecordException) {
                return "the peer does not speak TLS (start both sides with --tls, or neither)";
            }
            if (c instanceof CertificateException && c.getMessage() != null) {
                return "TLS: " + c.getMessage() + (c.getMessage().contains("pinned") || c.getMessage().contains("sender") ? ""
                        : " (pin the receiver's certificate with --pin sha256:..., or name its CA with --ca FILE)");
            }
            if (ssl == null && c instanceof SSLException) {
                ssl = c;
            }
        }
        if (ssl != null) {
            // also under a striped channel's "member connection ... failed" (QUIC's handshake may end after it connected)
            Throwable root = ssl;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            String why = root.getMessage() != null ? root.getMessage() : root.toString();
            String alert = senderRefusal(why);
            if (alert != null) {
                // the receiver checks senders' certificates (with or without one presented, the JDK answers bad_certificate)
                return "the receiver lets in chosen senders only and refused this one (TLS alert " + alert + "): "
                        + (senderFingerprint == null
                        ? "present a certificate it allows with --cert FILE --key FILE (ferry keygen makes a pair; "
                        + "the receiver's operator allows its fingerprint with --allow)"
                        : "its operator lets this sender in with --allow " + senderFingerprint + " (this sender's --cert)");
            }
            return "TLS handshake failed: " + why;
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof java.net.ConnectException && String.valueOf(c.getMessage()).contains("Connection refused")) {
                return "connection refused: nothing listens there (is ferry receive running, on this port and transport?)";
            }
        }
        if (t instanceof IOException && t.getMessage() != null) {
            return t.getMessage();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }
}
