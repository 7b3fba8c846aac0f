package io.ferry.cli.transfer;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Protocol 7's ALIVE: a receiver says every {@link #INTERVAL_MS} that it is there, with the content bytes it
 * has taken in the session; a sender that hears nothing at all from it for {@link #PEER_TIMEOUT_MS} knows it
 * is gone, over any transport. A killed receiver sends no reset over uTP, UDT or QUIC: the sender waited
 * for the transport's idle timeout (60, 10 and 30 s), its bar frozen. A receiver that is slow (its disk)
 * still beats: its frames travel the other way, and its event loop does not wait for the disk.
 */
final class Heartbeat {

    static final long INTERVAL_MS = 500;
    static final long PEER_TIMEOUT_MS = 4_000;
    static final long CHECK_MS = 250;

    private Heartbeat() {
    }

    /** The receiver's beat: an ALIVE frame with {@code taken()} every interval while the channel is open. */
    static ScheduledFuture<?> beat(ChannelHandlerContext ctx, LongSupplier taken) {
        return ctx.executor().scheduleAtFixedRate(() -> {
            if (ctx.channel().isActive()) {
                ctx.writeAndFlush(Frames.alive(ctx.alloc(), taken.getAsLong()));
            }
        }, 0, INTERVAL_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * The sender's watch: calls {@code gone} with the silence in milliseconds once {@code lastHeardNanos()}
     * is {@link #PEER_TIMEOUT_MS} old.
     */
    static ScheduledFuture<?> watch(ChannelHandlerContext ctx, LongSupplier lastHeardNanos, java.util.function.LongConsumer gone) {
        return ctx.executor().scheduleAtFixedRate(() -> {
            long silentMs = (System.nanoTime() - lastHeardNanos.getAsLong()) / 1_000_000;
            if (silentMs >= PEER_TIMEOUT_MS) {
                gone.accept(silentMs);
            }
        }, CHECK_MS, CHECK_MS, TimeUnit.MILLISECONDS);
    }
}
