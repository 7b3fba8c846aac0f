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

/**
 * Bulk throughput on loopback: one operation moves {@link #BURST} bytes (8 MiB) from client to server
 * in writes of {@code writeSize} bytes and waits for the server's one-byte acknowledgement. MiB/s =
 * ops/s × 8.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class BulkThroughputBenchmark {

    /** Bytes per operation. */
    public static final int BURST = 8 << 20;

    @Param({"tcp", "utp", "udt"})
    public String transport;

    @Param({"1024", "65536", "1048576"})
    public int writeSize;

    private LoopbackEndpoints endpoints;
    private Channel client;
    private final Semaphore acks = new Semaphore(0);
    private ByteBuf block;
    private Pump pump;

    private static final class Pump extends ChannelInboundHandlerAdapter {
        private final ByteBuf block;
        private final int writeSize;
        private final Semaphore acks;
        private long remaining;
        private ChannelHandlerContext ctx;

        Pump(ByteBuf block, int writeSize, Semaphore acks) {
            this.block = block;
            this.writeSize = writeSize;
            this.acks = acks;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        void start() {
            ctx.executor().execute(() -> {
                remaining += BURST;
                pump();
            });
        }

        private void pump() {
            while (remaining > 0 && ctx.channel().isWritable()) {
                int n = (int) Math.min(writeSize, remaining);
                remaining -= n; // before the write, which may re-enter pump() through channelWritabilityChanged
                ctx.write(block.slice(0, n));
            }
            ctx.flush();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            pump();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            int n = ((ByteBuf) msg).readableBytes();
            ReferenceCountUtil.release(msg);
            acks.release(n);
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        block = Unpooled.unreleasableBuffer(Unpooled.directBuffer(writeSize).writeZero(writeSize));
        endpoints = new LoopbackEndpoints(transport, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    long count;

                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        count += ((ByteBuf) msg).readableBytes();
                        ReferenceCountUtil.release(msg);
                        while (count >= BURST) {
                            count -= BURST;
                            ctx.writeAndFlush(ctx.alloc().buffer(1).writeByte(1));
                        }
                    }
                });
            }
        });
        pump = new Pump(block, writeSize, acks);
        client = endpoints.transports().connect(endpoints.uri(), pump).sync().channel();
    }

    @Benchmark
    public void burst() throws InterruptedException {
        pump.start();
        if (!acks.tryAcquire(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no acknowledgement within 60 s");
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
