/**
 * TLS pieces every Ferry TLS user shares (the {@code ferry} tool's {@code --tls}, QUIC's built-in TLS 1.3):
 * self-signed certificates made with the JDK's {@code keytool}, SHA-256 fingerprints in the {@code sha256:HEX}
 * form {@code --pin} takes, and a trust manager that trusts exactly one pinned certificate.
 */
package io.ferry.transport.tls;
