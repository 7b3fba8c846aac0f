package io.ferry.transport.tls;

import javax.net.ssl.KeyManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Generates a throw-away self-signed certificate and key (EC P-256) for testing TLS without a
 * certificate authority. It runs the JDK's own {@code keytool}, which every JDK and JRE ships, because
 * the JDK has no public API for creating certificates and Netty's {@code SelfSignedCertificate} needs
 * BouncyCastle or JDK internals that Java 17 encapsulates.
 */
public final class SelfSignedCertificates {

    /** A generated key pair with its certificate. */
    public record Generated(KeyManagerFactory keyManagers, X509Certificate certificate, PrivateKey privateKey) {
        /** {@code sha256:HEX}, to give to senders as {@code --pin} (or to a receiver as {@code --allow}). */
        public String fingerprint() {
            return Fingerprints.of(certificate);
        }

        /**
         * Writes the certificate (PEM) and the private key (PEM, unencrypted PKCS#8, readable by its owner
         * only where the file system has POSIX permissions); neither file may exist yet.
         */
        public void writePem(Path certificateFile, Path keyFile) throws IOException {
            try {
                write(certificateFile, "CERTIFICATE", certificate.getEncoded(), false);
            } catch (java.security.cert.CertificateEncodingException e) {
                throw new IOException("cannot encode the certificate: " + e.getMessage(), e);
            }
            write(keyFile, "PRIVATE KEY", privateKey.getEncoded(), true);
        }

        private static void write(Path file, String type, byte[] der, boolean secret) throws IOException {
            String pem = "-----BEGIN " + type + "-----\n"
                    + java.util.Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                    + "\n-----END " + type + "-----\n";
            boolean posix = file.toAbsolutePath().getParent() != null
                    && Files.getFileStore(file.toAbsolutePath().getParent()).supportsFileAttributeView("posix");
            if (secret && posix) {
                Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
                Files.writeString(file, pem, StandardCharsets.US_ASCII);
            } else {
                Files.writeString(file, pem, StandardCharsets.US_ASCII, java.nio.file.StandardOpenOption.CREATE_NEW,
                        java.nio.file.StandardOpenOption.WRITE);
            }
        }
    }

    private SelfSignedCertificates() {
    }

    /**
     * Generates a pair valid for 30 days for {@code localhost}, 127.0.0.1 and {@code hostName}.
     *
     * @throws IOException if keytool is missing or fails
     */
    public static Generated generate(String hostName) throws IOException, GeneralSecurityException {
        return generate(hostName, "ferry self-signed", 30);
    }

    /**
     * Generates a pair valid for {@code days} days with common name {@code commonName}, for
     * {@code localhost}, 127.0.0.1 and {@code hostName}.
     *
     * @throws IOException if keytool is missing or fails
     */
    public static Generated generate(String hostName, String commonName, int days) throws IOException, GeneralSecurityException {
        Path dir = Files.createTempDirectory("ferry-tls");
        Path store = dir.resolve("self-signed.p12");
        char[] password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16)).toCharArray();
        try {
            Path keytool = Path.of(System.getProperty("java.home"), "bin", isWindows() ? "keytool.exe" : "keytool");
            if (!Files.isExecutable(keytool)) {
                throw new IOException("cannot generate a self-signed certificate: " + keytool + " is missing; give --cert and --key instead");
            }
            String san = "SAN=dns:localhost,ip:127.0.0.1,ip:::1" + (hostName.matches("[A-Za-z0-9.-]+") ? ",dns:" + hostName : "");
            ProcessBuilder builder = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", "ferry",
                    "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA",
                    "-dname", "CN=" + commonName.replaceAll("[,=+<>#;\"\\\\]", "_"), "-validity", String.valueOf(days), "-ext", san,
                    "-keystore", store.toString(), "-storetype", "PKCS12",
                    "-storepass:env", "FERRY_STOREPASS", "-keypass:env", "FERRY_STOREPASS", "-noprompt"))
                    .redirectErrorStream(true);
            // The password goes through the environment, never the command line where other users could read it.
            builder.environment().put("FERRY_STOREPASS", new String(password));
            Process process = builder.start();
            process.getOutputStream().close();
            String output;
            try (InputStream in = process.getInputStream()) {
                output = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            }
            boolean exited;
            try {
                exited = process.waitFor(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
                throw new IOException("interrupted while generating a self-signed certificate", e);
            }
            if (!exited || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IOException("keytool could not generate a self-signed certificate: " + output);
            }
            KeyStore keyStore = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(store)) {
                keyStore.load(in, password);
            }
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keyStore, password);
            return new Generated(keyManagers, (X509Certificate) keyStore.getCertificate("ferry"),
                    (PrivateKey) keyStore.getKey("ferry", password));
        } finally {
            Files.deleteIfExists(store);
            Files.deleteIfExists(dir);
        }
    }

    private static boolean isWindows() {
        return System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).startsWith("windows");
    }
}
