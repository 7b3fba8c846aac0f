package io.ferry.transport.quic;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** QUIC's TLS 1.3 as Ferry sets it up: the self-signed default and its pin, and the user's own certificates. */
class QuicTlsTest {

    @Test
    void aClientPinningTheListenersFingerprintConnectsAndAnotherPinIsRefused() throws Exception {
        try (Transports ferry = Transports.create()) {
            Channel server = ferry.listen("quic://127.0.0.1:0", new ChannelInboundHandlerAdapter()).sync().channel();
            String fingerprint = ((QuicTransport) ferry.transport("quic")).certificateFingerprint();
            assertTrue(fingerprint.matches("sha256:[0-9a-f]{64}"), fingerprint);

            ChannelFuture pinned = ferry.connect(FerryChannels.uri(server), new ChannelInboundHandlerAdapter(),
                    ChannelOptions.builder().set(QuicOption.PIN, fingerprint).build());
            assertTrue(pinned.await(10, TimeUnit.SECONDS) && pinned.isSuccess(), "pinned: " + pinned.cause());
            pinned.channel().close().await(10, TimeUnit.SECONDS);

            ChannelFuture wrong = ferry.connect(FerryChannels.uri(server), new ChannelInboundHandlerAdapter(),
                    ChannelOptions.builder().set(QuicOption.PIN, "sha256:" + "00".repeat(32)).build());
            assertTrue(wrong.await(10, TimeUnit.SECONDS), "the refusal comes within the handshake");
            assertFalse(wrong.isSuccess(), "a certificate that is not the pinned one is refused");
            server.close().sync();
        }
    }

    @Test
    void aUsersCertificateAndTrustConnectAndAClientTrustingAnotherDoesNot() throws Exception {
        X509Bundle leaf = new CertificateBuilder().subject("CN=localhost").addSanDnsName("localhost").addSanIpAddress("127.0.0.1")
                .setIsCertificateAuthority(true).ecp256().buildSelfSigned();
        X509Bundle stranger = new CertificateBuilder().subject("CN=someone else").setIsCertificateAuthority(true).ecp256().buildSelfSigned();
        ChannelOptions serverTls = ChannelOptions.builder().set(QuicOption.SERVER_TLS,
                QuicSslContextBuilder.forServer(leaf.toKeyManagerFactory(), null).applicationProtocols(QuicTls.ALPN).build()).build();
        try (Transports ferry = Transports.create()) {
            Channel server = ferry.listen("quic://127.0.0.1:0", new ChannelInboundHandlerAdapter(), serverTls).sync().channel();
            ChannelFuture trusted = ferry.connect(FerryChannels.uri(server), new ChannelInboundHandlerAdapter(),
                    ChannelOptions.builder().set(QuicOption.CLIENT_TLS, QuicSslContextBuilder.forClient()
                            .trustManager(leaf.getCertificate()).applicationProtocols(QuicTls.ALPN).build()).build());
            assertTrue(trusted.await(10, TimeUnit.SECONDS) && trusted.isSuccess(), "trusted: " + trusted.cause());
            trusted.channel().close().await(10, TimeUnit.SECONDS);

            ChannelFuture untrusted = ferry.connect(FerryChannels.uri(server), new ChannelInboundHandlerAdapter(),
                    ChannelOptions.builder().set(QuicOption.CLIENT_TLS, QuicSslContextBuilder.forClient()
                            .trustManager(stranger.getCertificate()).applicationProtocols(QuicTls.ALPN).build()).build());
            assertTrue(untrusted.await(10, TimeUnit.SECONDS));
            assertFalse(untrusted.isSuccess(), "a certificate the client does not trust is refused");
            server.close().sync();
        }
    }
}
