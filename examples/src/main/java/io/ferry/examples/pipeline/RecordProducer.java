package io.ferry.examples.pipeline;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;

import java.util.concurrent.CompletableFuture;

/**
 * The upstream stage of a pipeline: ships length-prefixed records ({@code u32 length, payload}) over
 * any Ferry channel and asks its {@link Source} for the next record only while the channel is
 * writable. When the consumer falls behind, its transport window closes, this channel becomes
 * unwritable, and production stops until it drains: backpressure reaches the record generator
 * itself. After the last record it writes an empty record (length 0) as the end marker.
 */
public final class RecordProducer extends ChannelInboundHandlerAdapter {

    /** Produces records on demand. */
    public interface Source {
        /** The next record's payload, or {@code null} when there are no more. Called on the event loop. */
        ByteBuf next(ByteBufAllocator alloc);
    }

    /** What the producer did. */
    public record Stats(long records, long bytes, long pauses, long maxPendingBytes) {
    }

    private final Source source;
    private final CompletableFuture<Stats> done = new CompletableFuture<>();
    private long records;
    private long bytes;
    private long pauses;
    private long maxPending;
    private boolean finished;

    public RecordProducer(Source source) {
        this.source = source;
    }

    /** Completes once the end marker is written (with what was produced), or fails if the channel fails first. */
    public CompletableFuture<Stats> done() {
        return done;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        produce(ctx);
        ctx.fireChannelActive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            produce(ctx);
        }
        ctx.fireChannelWritabilityChanged();
    }

    private void produce(ChannelHandlerContext ctx) {
        while (!finished && ctx.channel().isWritable()) {
            ByteBuf payload = source.next(ctx.alloc());
            if (payload == null) {
                finished = true;
                ctx.writeAndFlush(ctx.alloc().buffer(4).writeInt(0)).addListener(f -> {
                    if (f.isSuccess()) {
                        done.complete(new Stats(records, bytes, pauses, maxPending));
                    } else {
                        done.completeExceptionally(f.cause());
                    }
                });
                return;
            }
            ctx.write(ctx.alloc().buffer(4).writeInt(payload.readableBytes()));
            bytes += payload.readableBytes();
            records++;
            ctx.write(payload);
            ChannelOutboundBuffer outbound = ctx.channel().unsafe().outboundBuffer();
            if (outbound != null) {
                maxPending = Math.max(maxPending, outbound.totalPendingWriteBytes());
            }
            if (records % 64 == 0) {
                ctx.flush();
            }
        }
        if (!finished) {
            pauses++; // unwritable: wait for channelWritabilityChanged
        }
        ctx.flush();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        done.completeExceptionally(new IllegalStateException("the connection closed after " + records + " records"));
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        done.completeExceptionally(cause);
        ctx.close();
    }
}
