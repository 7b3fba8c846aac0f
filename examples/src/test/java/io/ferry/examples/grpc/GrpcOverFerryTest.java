package io.ferry.examples.grpc;

import io.ferry.grpc.FerryGrpc;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The gRPC example's service over every installed Ferry transport, built with {@link FerryGrpc}. */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GrpcOverFerryTest {

    @ParameterizedTest
    @MethodSource("io.ferry.examples.InstalledTransports#schemes")
    void unaryAndStreamingCallsWorkOverTheTransport(String scheme) throws Exception {
        try (Transports ferry = Transports.create()) {
            Server server = FerryGrpc.serverBuilder(ferry, scheme + "://127.0.0.1:0").addService(new EchoService()).build().start();
            int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
            ManagedChannel channel = FerryGrpc.channelBuilder(ferry, scheme + "://127.0.0.1:" + port).usePlaintext().build();
            try {
                assertEquals("hello over " + scheme, EchoService.echo(channel, "hello over " + scheme));
                String big = "x".repeat(3 << 20); // larger than HTTP/2's initial windows: flow control at work
                assertEquals(big, EchoService.echo(channel, big));
                int n = 0;
                for (Iterator<String> lines = EchoService.count(channel, 2000); lines.hasNext(); n++) {
                    assertEquals("line " + n, lines.next());
                }
                assertEquals(2000, n);
            } finally {
                channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
                server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            }
        }
    }
}
