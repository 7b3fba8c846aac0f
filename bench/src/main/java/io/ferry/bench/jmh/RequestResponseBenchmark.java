package io.ferry.bench.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.util.ReferenceCountUtil;
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

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/** Request/response latency on loopback: a 64-byte request, echoed back, on one open connection. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class RequestResponseBenchmark {

    private static final int SIZE = 64;

    @Param({"tcp", "utp", "udt"})
    public String transport;

    private LoopbackEndpoints endpoints;
    private Channel client;
    private final Semaphore responses = new Semaphore(0);
    private final ByteBuf request = Unpooled.unreleasableBuffer(Unpooled.directBuffer(SIZE).writeZero(SIZE));

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        endpoints = new LoopbackEndpoints(transport, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ctx.writeAndFlush(msg);
                    }
                });
            }
        });
        client = endpoints.transports().connect(endpoints.uri(), new ChannelInboundHandlerAdapter() {
            int pending;

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                pending += ((ByteBuf) msg).readableBytes();
                ReferenceCountUtil.release(msg);
                while (pending >= SIZE) {
                    pending -= SIZE;
                    responses.release();
                }
            }
        }).sync().channel();
    }

    @Benchmark
    public void roundTrip() throws InterruptedException {
        client.writeAndFlush(request.duplicate());
        if (!responses.tryAcquire(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no response within 10 s");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        if (client != null) {
            client.close().sync();
        }
        if (endpoints != null) {
            endpoints.close();
        }
    }
}
