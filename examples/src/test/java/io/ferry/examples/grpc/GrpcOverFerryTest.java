package io.ferry.examples.grpc;

import io.ferry.transport.FerryChannels;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import java.util.List;
import io.ferry.transport.conformance.LeakDetectionExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Iterator;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** grpc-java's Netty transport carried by every installed Ferry transport, with no bridge in between. */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GrpcOverFerryTest {

    @ParameterizedTest
    @MethodSource("io.ferry.examples.InstalledTransports#schemes")
    void unaryAndStreamingCallsWorkOverTheTransport(String scheme) throws Exception {
        try (Transports ferry = Transports.create();
             FerryGrpc.ServerHandle server = FerryGrpc.server(ferry, scheme + "://127.0.0.1:0", new EchoService());
             FerryGrpc.ClientHandle client = FerryGrpc.client(ferry, scheme + "://127.0.0.1:" + server.port())) {
            assertEquals("hello over " + scheme, EchoService.echo(client.channel(), "hello over " + scheme));
            String big = "x".repeat(3 << 20); // larger than HTTP/2's initial windows: flow control at work
            assertEquals(big, EchoService.echo(client.channel(), big));
            int n = 0;
            for (Iterator<String> lines = EchoService.count(client.channel(), 2000); lines.hasNext(); n++) {
                assertEquals("line " + n, lines.next());
            }
            assertEquals(2000, n);
            // The server's connection is a Ferry channel of this transport, and the 3 MiB crossed it.
            List<Channel> connections = server.connections();
            assertEquals(1, connections.size(), connections.toString());
            Channel connection = connections.get(0);
            assertEquals(scheme, FerryChannels.transportOf(connection).name());
            assertTrue(FerryChannels.statistics(connection).bytesReceived() > (3 << 20), FerryChannels.statistics(connection).toString());
        }
    }
}
