package io.ferry.bench.jmh;

import io.ferry.transport.FerryChannels;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.TimeUnit;

/**
 * Connection setup rate on loopback: connect, wait until active, then abort (TCP RST, uTP ST_RESET) and
 * wait until closed. Aborting keeps closed connections from piling up (TCP TIME_WAIT, uTP's linger),
 * which at thousands of connections per second would exhaust ports and descriptors within seconds.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ConnectionSetupBenchmark {

    @Param({"tcp", "utp", "udt"})
    public String transport;

    private LoopbackEndpoints endpoints;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        endpoints = new LoopbackEndpoints(transport, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                // Accepted connections need no handler.
            }
        });
    }

    @Benchmark
    public void connectAndClose() throws InterruptedException {
        Channel ch = endpoints.transports().connect(endpoints.uri(), new ChannelInboundHandlerAdapter()).sync().channel();
        FerryChannels.abort(ch).sync();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        if (endpoints != null) {
            endpoints.close();
        }
    }
}
