package io.ferry.bench.jmh;

import io.ferry.transport.ledbat.core.ConnectionSink;
import io.ferry.transport.ledbat.core.UtpConfig;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.ledbat.endpoint.EndpointCore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The uTP endpoint's work per received datagram, without a socket (issue 58): parse the header, find the
 * connection by (address, connection id) among {@code connections} others, decide ROUTE. A regression in
 * the routing table or the parser shows up here; allocation per datagram with {@code -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class EngineRouteBenchmark {

    @Param({"1", "1000"})
    public int connections;

    private EndpointCore<Held> routes;
    private ByteBuf datagram;
    private InetSocketAddress from;
    private final List<UtpConnection> opened = new ArrayList<>();

    /** A connection as the endpoint's table holds one. */
    private record Held(UtpConnection connection, InetSocketAddress remote) {
    }

    @Setup(Level.Trial)
    public void setUp() {
        routes = new EndpointCore<>(Held::connection, Held::remote, 42L, 1000, h -> { }, false);
        UtpConfig config = UtpConfig.defaults();
        ByteBuf last = null;
        for (int i = 0; i < connections; i++) {
            InetSocketAddress peer = new InetSocketAddress(InetAddress.getLoopbackAddress(), 20_000 + i);
            UtpConnection client = UtpConnection.connect(config, 1000 + 2 * i, 1, 0);
            List<ByteBuf> sent = new ArrayList<>();
            client.collect(collector(sent), true);
            UtpConnection server = UtpConnection.accept(config, sent.get(0), 7000, 0);
            sent.forEach(ByteBuf::release);
            List<ByteBuf> answer = new ArrayList<>();
            server.collect(collector(answer), true);
            routes.register(new Held(server, peer));
            opened.add(client);
            opened.add(server);
            if (last != null) {
                last.release();
            }
            // a data packet as this client would send it: the one routed is the last connection's
            for (ByteBuf a : answer) {
                client.onPacket(a, null, 0);
                a.release();
            }
            client.write(Unpooled.wrappedBuffer(new byte[1400]));
            client.flush(0);
            List<ByteBuf> data = new ArrayList<>();
            client.collect(collector(data), true);
            last = data.remove(data.size() - 1);
            data.forEach(ByteBuf::release);
            from = peer;
        }
        datagram = last;
    }

    private static ConnectionSink collector(List<ByteBuf> into) {
        return new ConnectionSink() {
            @Override
            public void send(ByteBuf packet) {
                into.add(packet);
            }

            @Override
            public void connected() {
            }

            @Override
            public void data(ByteBuf payload) {
                payload.release();
            }

            @Override
            public void endOfStream() {
            }

            @Override
            public void writabilityChanged(boolean writable) {
            }

            @Override
            public void closed(Throwable causeOrNull) {
            }
        };
    }

    @Benchmark
    public Object route() {
        routes.handle(datagram, from, 0);
        return routes.target();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        datagram.release();
        for (UtpConnection c : opened) {
            c.abort(0);
            c.releaseUncollected();
        }
    }
}
