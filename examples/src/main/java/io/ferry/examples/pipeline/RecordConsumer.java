package io.ferry.examples.pipeline;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The downstream stage of a pipeline: decodes length-prefixed records and hands each to a
 * {@link Sink} on a worker thread. At most {@code queueLimit} records wait for the sink; beyond that
 * the channel stops reading ({@code autoRead} off), the transport's receive window fills, and the
 * producer's channel becomes unwritable. Reading resumes when the queue is half empty.
 */
public final class RecordConsumer extends ChannelInboundHandlerAdapter {

    /** Processes records, one at a time, on the consumer's worker thread. */
    public interface Sink {
        /** Processes one record; the consumer releases it afterwards. */
        void accept(ByteBuf record) throws Exception;
    }

    /** What the consumer did. */
    public record Stats(long records, long bytes, long pauses, int maxQueued) {
    }

    private static final int MAX_RECORD = 16 << 20;

    private final Sink sink;
    private final Executor worker;
    private final int queueLimit;
    private final AtomicInteger queued = new AtomicInteger();
    private final CompletableFuture<Stats> done = new CompletableFuture<>();
    private long records;
    private long bytes;
    private long pauses;
    private int maxQueued;

    /**
     * @param worker     runs the sink; must run tasks in order (e.g. a single-thread executor)
     * @param queueLimit records waiting for the sink before reading stops
     */
    public RecordConsumer(Sink sink, Executor worker, int queueLimit) {
        this.sink = sink;
        this.worker = worker;
        this.queueLimit = queueLimit;
    }

    /** Adds the record decoder and this consumer to a pipeline. */
    public void addTo(ChannelPipeline pipeline) {
        pipeline.addLast(new LengthFieldBasedFrameDecoder(MAX_RECORD, 0, 4, 0, 4), this);
    }

    /** Completes when the end marker has been processed, with what was consumed. */
    public CompletableFuture<Stats> done() {
        return done;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf record = (ByteBuf) msg;
        if (!record.isReadable()) {
            record.release();
            worker.execute(() -> ctx.executor().execute(() -> {
                done.complete(new Stats(records, bytes, pauses, maxQueued));
                ctx.close();
            }));
            return;
        }
        records++;
        bytes += record.readableBytes();
        int waiting = queued.incrementAndGet();
        maxQueued = Math.max(maxQueued, waiting);
        if (waiting >= queueLimit && ctx.channel().config().isAutoRead()) {
            ctx.channel().config().setAutoRead(false);
            pauses++;
        }
        worker.execute(() -> {
            try {
                sink.accept(record);
            } catch (Exception e) {
                ctx.executor().execute(() -> exceptionCaught(ctx, e));
            } finally {
                record.release();
                if (queued.decrementAndGet() == queueLimit / 2) {
                    ctx.executor().execute(() -> ctx.channel().config().setAutoRead(true));
                }
            }
        });
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        done.completeExceptionally(new IllegalStateException("the producer went away after " + records + " records, before the end marker"));
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        done.completeExceptionally(cause);
        ctx.close();
    }
}
