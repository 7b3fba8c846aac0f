package io.ferry.transport.tls;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Locale;

/** SHA-256 certificate fingerprints written as {@code sha256:HEX}, the form {@code --pin} takes. */
public final class Fingerprints {

    private Fingerprints() {
    }

    /** The fingerprint of a certificate: {@code sha256:} and 64 lower-case hex digits of its DER encoding's SHA-256. */
    public static String of(X509Certificate certificate) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded());
            return "sha256:" + HexFormat.of().formatHex(digest);
        } catch (CertificateEncodingException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot fingerprint certificate: " + e.getMessage(), e);
        }
    }

    /**
     * Normalises a fingerprint given by a user: {@code sha256:} prefix optional, colons and case ignored.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static String parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.startsWith("sha256:")) {
            t = t.substring("sha256:".length());
        } else if (t.contains(":") && t.length() < 70 && t.indexOf(':') < 10 && !t.matches("([0-9a-f]{2}:)+[0-9a-f]{2}")) {
            throw new IllegalArgumentException("only sha256 fingerprints are supported, got '" + text + "'");
        }
        t = t.replace(":", "");
        if (!t.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("'" + text + "' is not a SHA-256 fingerprint (sha256: and 64 hex digits)");
        }
        return "sha256:" + t;
    }
}
