package io.ferry.transport.conformance;

import io.ferry.transport.BlockingChannelWriter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Producers on application threads, as pipelines write: through {@link BlockingChannelWriter}, from
 * several threads at once, in tiny messages, and blocked by a peer that does not read. Every transport
 * runs these as part of {@link TransportConformanceTest}.
 */
interface ApplicationThreadWriters extends ConformanceEndpoints {

    @Test
    @Timeout(120)
    default void anApplicationThreadProducerDeliversEveryByteInOrder() throws Exception {
        byte[] payload = new byte[6 * 1024 * 1024 + 123];
        new SplittableRandom(33).nextBytes(payload);
        ByteCollector collector = new ByteCollector(payload.length);
        Channel server = listenForTest(ch -> ch.pipeline().addLast(collector));
        Channel client = connectForTest(server, ch -> { });
        try {
            try (BlockingChannelWriter out = BlockingChannelWriter.of(client)) {
                for (int off = 0; off < payload.length; off += 64 * 1024) {
                    out.write(Unpooled.wrappedBuffer(payload, off, Math.min(64 * 1024, payload.length - off)));
                }
            }
            assertArrayEquals(payload, TransportConformanceTest.await(collector.done(), "the producer's bytes"));
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }

    @Test
    @Timeout(120)
    default void fourProducerThreadsInterleaveWholeMessagesInTheirOwnOrder() throws Exception {
        int threads = 4;
        int perThread = 5_000;
        ConcurrentHashMap<Integer, AtomicLong> next = new ConcurrentHashMap<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        AtomicLong total = new AtomicLong();
        Channel server = listenForTest(ch -> ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1 << 20, 0, 4, 0, 4),
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf record = (ByteBuf) msg;
                        try {
                            int thread = record.readInt();
                            long seq = record.readLong();
                            long expected = next.computeIfAbsent(thread, t -> new AtomicLong()).getAndIncrement();
                            if (seq != expected || record.readableBytes() != (int) (seq % 700)) {
                                done.completeExceptionally(new AssertionError("thread " + thread + ": record " + seq
                                        + " with " + record.readableBytes() + " bytes where record " + expected + " was due"));
                            }
                        } finally {
                            ReferenceCountUtil.release(record);
                        }
                        if (total.incrementAndGet() == (long) threads * perThread) {
                            done.complete(null);
                        }
                    }
                }));
        Channel client = connectForTest(server, ch -> ch.pipeline().addLast(new LengthFieldPrepender(4)));
        try {
            List<CompletableFuture<Void>> producers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                producers.add(CompletableFuture.runAsync(() -> {
                    try (BlockingChannelWriter out = BlockingChannelWriter.of(client)) {
                        for (long seq = 0; seq < perThread; seq++) {
                            ByteBuf record = client.alloc().buffer(12 + 700);
                            record.writeInt(id).writeLong(seq).writeZero((int) (seq % 700));
                            if (seq % 100 == 99) {
                                out.writeAndFlush(record);
                            } else {
                                out.write(record);
                            }
                        }
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                }, runnable -> new Thread(runnable, "producer-" + id).start()));
            }
            CompletableFuture.allOf(producers.toArray(new CompletableFuture[0])).get(90, TimeUnit.SECONDS);
            TransportConformanceTest.await(done, "every thread's records in order");
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }

    @Test
    @Timeout(120)
    default void tinyMessagesFlushedInBatchesAllArrive() throws Exception {
        int messages = 20_000;
        byte[] expected = new byte[messages * 64];
        for (int i = 0; i < expected.length; i++) {
            expected[i] = (byte) (i / 64);
        }
        ByteCollector collector = new ByteCollector(expected.length);
        Channel server = listenForTest(ch -> ch.pipeline().addLast(collector));
        Channel client = connectForTest(server, ch -> { });
        try {
            try (BlockingChannelWriter out = BlockingChannelWriter.of(client)) {
                for (int i = 0; i < messages; i++) {
                    out.write(client.alloc().buffer(64).writeBytes(expected, i * 64, 64));
                    if (i % 1000 == 999) {
                        out.flush();
                    }
                }
            }
            assertArrayEquals(expected, TransportConformanceTest.await(collector.done(), "20,000 messages of 64 bytes"));
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }

    @Test
    @Timeout(120)
    default void aProducerBlocksWhileThePeerDoesNotReadAndFinishesWhenItDoes() throws Exception {
        long size = 96L << 20;
        AtomicLong received = new AtomicLong();
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        CompletableFuture<Void> all = new CompletableFuture<>();
        Channel server = listenForTest(ch -> {
            ch.config().setAutoRead(false);
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    accepted.complete(ctx.channel());
                    ctx.fireChannelActive();
                }

                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    if (received.addAndGet(((ByteBuf) msg).readableBytes()) >= size) {
                        all.complete(null);
                    }
                    ReferenceCountUtil.release(msg);
                }
            });
        });
        Channel client = connectForTest(server, ch -> { });
        ByteBuf chunk = Unpooled.directBuffer(64 * 1024).writeZero(64 * 1024);
        try {
            CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
                try (BlockingChannelWriter out = BlockingChannelWriter.of(client)) {
                    for (long sent = 0; sent < size; sent += chunk.readableBytes()) {
                        out.write(chunk.retainedDuplicate());
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }, runnable -> new Thread(runnable, "producer").start());
            Channel peer = TransportConformanceTest.await(accepted, "the accepted connection");
            Thread.sleep(1500);
            assertFalse(producer.isDone(), "96 MiB cannot all be buffered while the peer reads nothing: the producer must block");
            peer.config().setAutoRead(true);
            producer.get(90, TimeUnit.SECONDS);
            TransportConformanceTest.await(all, "everything, once the peer reads");
            assertEquals(size, received.get());
        } finally {
            chunk.release();
            client.close().sync();
            server.close().sync();
        }
    }

    @Test
    default void writingToAClosedChannelThrowsAndReleasesTheMessage() throws Exception {
        Channel server = listenForTest(ch -> { });
        Channel client = connectForTest(server, ch -> { });
        BlockingChannelWriter out = BlockingChannelWriter.of(client);
        client.close().sync();
        ByteBuf msg = Unpooled.buffer(16).writeZero(16);
        assertThrows(ClosedChannelException.class, () -> out.write(msg));
        assertEquals(0, msg.refCnt(), "the message was released");
        out.close();
        server.close().sync();
    }
}
