package io.ferry.transport.quic;

import io.ferry.transport.tls.Fingerprints;
import io.ferry.transport.tls.PinnedTrustManager;
import io.ferry.transport.tls.SelfSignedCertificates;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.GeneralSecurityException;

/**
 * QUIC's TLS 1.3 (RFC 9001) as Ferry sets it up: ALPN {@value #ALPN} on both ends; a listener presents the
 * user's certificate or one self-signed certificate its transport made once (with the JDK's keytool); a client
 * checks the user's trust, or a pinned fingerprint, or nothing (encrypted, not authenticated).
 */
final class QuicTls {

    /** The application protocol both ends name in the handshake (RFC 9001 section 8.1 requires one). */
    static final String ALPN = QuicTransport.APPLICATION_PROTOCOL;

    private SelfSignedCertificates.Generated selfSigned;

    /** The listener's context: the user's, else the transport's self-signed certificate. */
    QuicSslContext server(QuicSslContext user) {
        if (user != null) {
            return user;
        }
        SelfSignedCertificates.Generated own = selfSigned();
        return QuicSslContextBuilder.forServer(own.privateKey(), null, own.certificate())
                .applicationProtocols(ALPN).build();
    }

    /** The client's context: the user's, else one trusting the pinned certificate, else any certificate. */
    static QuicSslContext client(QuicSslContext user, String pin) {
        if (user != null) {
            return user;
        }
        QuicSslContextBuilder b = QuicSslContextBuilder.forClient().applicationProtocols(ALPN);
        if (pin != null) {
            b.trustManager(new PinnedTrustManager(pin));
        } else {
            b.trustManager(InsecureTrustManagerFactory.INSTANCE);
        }
        return b.build();
    }

    /** The fingerprint of the self-signed certificate listeners present without {@link QuicOption#SERVER_TLS}. */
    String fingerprint() {
        return Fingerprints.of(selfSigned().certificate());
    }

    private synchronized SelfSignedCertificates.Generated selfSigned() {
        if (selfSigned == null) {
            try {
                selfSigned = SelfSignedCertificates.generate("localhost", "ferry quic", 365);
            } catch (IOException e) {
                throw new UncheckedIOException("QUIC needs a certificate and could not make a self-signed one: " + e.getMessage(), e);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("QUIC needs a certificate and could not make a self-signed one: " + e.getMessage(), e);
            }
        }
        return selfSigned;
    }
}
