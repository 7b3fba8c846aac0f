package io.ferry.transport.conformance;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;

/** A self-signed certificate for {@code localhost} and the matching server and client TLS contexts. */
final class SelfSignedTls {
    final SslContext server;
    final SslContext client;

    SelfSignedTls() throws Exception {
        X509Bundle bundle = new CertificateBuilder()
                .subject("CN=localhost")
                .addSanDnsName("localhost")
                .addSanIpAddress("127.0.0.1")
                .setIsCertificateAuthority(true)
                .ecp256()
                .buildSelfSigned();
        server = SslContextBuilder.forServer(bundle.toKeyManagerFactory()).build();
        client = SslContextBuilder.forClient().trustManager(bundle.getCertificate()).build();
    }
}
