package io.ferry.transport.tcp;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.ptr.IntByReference;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.spi.ByteCountingHandler;
import io.ferry.transport.spi.EndOfStreamGate;
import io.ferry.transport.spi.LingeringChannels;
import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelPromise;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.epoll.EpollTcpInfo;
import io.netty.channel.socket.DuplexChannel;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Makes a TCP channel's graceful {@code close()} mean what it means for every Ferry transport: the close
 * future completes once the peer has acknowledged every byte written before it and the FIN, or fails
 * with {@link UndeliveredDataException} when {@link FerryChannelOption#LINGER} runs out or the connection
 * dies first (the connection is then reset, so the kernel does not go on sending behind the program's back).
 *
 * <p>The handler flushes, waits until Netty's outbound buffer has drained into the socket, shuts the
 * output down (the FIN queues behind the data) and then watches the socket's TCP state every
 * {@value #POLL_MILLIS} ms: {@code FIN_WAIT2}, {@code TIME_WAIT} or {@code CLOSE} mean the FIN, and so
 * every byte, was acknowledged. The kernel sends no event for an acknowledgement, hence the polling.
 * A failed close names the kernel's exact count of unacknowledged bytes ({@code SIOCOUTQ}, through JNA,
 * loaded only then: loading it costs a close 50-150 ms, {@code ldconfig -p} included), or, once the
 * socket is gone, the bound {@code TCP_INFO} gave at the last poll (unacknowledged segments × MSS, at
 * most what was written). It needs Netty's native epoll channel for {@code TCP_INFO}; over NIO a close
 * waits only until Netty's buffer has drained into the socket, then hands the rest to the kernel like plain
 * Java sockets do. Either way the output ends only once {@link EndOfStreamGate} lets it: file regions and
 * the chunks a {@code ChunkedWriteHandler} writes as earlier ones leave go out before the FIN.
 */
final class TcpLingeringClose extends ChannelDuplexHandler {

    /** The name under which the transport adds this handler. */
    static final String NAME = "ferry-linger";

    private static final long POLL_MILLIS = 2;
    private static final int TCP_FIN_WAIT2 = 5;
    private static final int TCP_TIME_WAIT = 6;
    private static final int TCP_CLOSE = 7;
    private static final int SIOCOUTQ = 0x5411;

    private Duration linger = FerryChannelOption.DEFAULT_LINGER;
    private final List<ChannelPromise> promises = new ArrayList<>(2);
    private boolean started;
    private volatile boolean aborting;
    private boolean finished;
    private long deadlineNanos;
    /** The socket's {@code TCP_INFO}, read again at every poll. */
    private final EpollTcpInfo info = new EpollTcpInfo();
    /** At most this many bytes were unacknowledged at the last poll ({@code TCP_INFO}); -1 before the first. */
    private long unacknowledgedBound = -1;
    /** When the FIN may go out; made when the close starts. */
    private EndOfStreamGate end;

    /** The handler of a channel's pipeline, or {@code null} if it has none. */
    static TcpLingeringClose of(Channel channel) {
        return (TcpLingeringClose) channel.pipeline().get(NAME);
    }

    void linger(Duration value) {
        linger = value;
    }

    Duration linger() {
        return linger;
    }

    /** The next close is an abort: it passes straight through (the caller has set {@code SO_LINGER=0}). */
    void abortOnClose() {
        aborting = true;
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        Channel ch = ctx.channel();
        TcpInfoSnapshot.of(ch); // the kernel's figures, while the socket still has them
        if (started) {
            if (aborting && !finished) { // an abort cuts a lingering close short
                finish(ctx, failure(ch, "the connection was aborted"), true);
            }
            if (finished || promise.isVoid()) {
                ctx.close(promise);
            } else {
                promises.add(promise);
            }
            return;
        }
        if (aborting || !ch.isActive() || !(ch instanceof DuplexChannel)) {
            ctx.close(promise);
            return;
        }
        if (linger.isZero()) {
            resetOnClose(ch);
            ctx.close(promise);
            return;
        }
        started = true;
        if (!promise.isVoid()) {
            promises.add(promise);
        }
        // The peer's FIN must not make Netty close the socket under the wait: its state tells the outcome.
        ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        deadlineNanos = System.nanoTime() + linger.toNanos();
        end = new EndOfStreamGate(ch);
        ch.closeFuture().addListener(f -> {
            if (!finished) { // closed underneath, by a reset or an I/O error
                finish(ctx, failure(ch, "the connection was reset or failed"), false);
            }
        });
        ctx.flush();
        check(ctx);
    }

    /** Once the close began, what the peer still sends is read (so it is not stalled) and dropped. */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (started) {
            io.netty.util.ReferenceCountUtil.release(msg);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (started && (evt instanceof io.netty.channel.socket.ChannelInputShutdownEvent
                || evt == io.netty.channel.socket.ChannelInputShutdownReadComplete.INSTANCE)) {
            return; // the application asked to close; the peer's end of stream is the close's business
        }
        ctx.fireUserEventTriggered(evt);
    }

    private void check(ChannelHandlerContext ctx) {
        if (finished) {
            return;
        }
        if (!(ctx.channel() instanceof EpollSocketChannel ch)) {
            checkDrained(ctx);
            return;
        }
        try {
            if (!ch.isOutputShutdown() && end.mayEnd(() -> { })) { // polled again below
                end.markSent();
                ch.shutdownOutput(); // the FIN queues behind everything written
            }
            ch.tcpInfo(info);
            if (ch.isOutputShutdown()) {
                int state = info.state();
                if (state == TCP_FIN_WAIT2 || state == TCP_TIME_WAIT || state == TCP_CLOSE) {
                    finish(ctx, null, true);
                    return;
                }
            }
            unacknowledgedBound = unacknowledgedBound(ch);
        } catch (ChannelException socketGone) {
            finish(ctx, failure(ch, "the connection was reset or failed"), true);
            return;
        }
        if (System.nanoTime() >= deadlineNanos) {
            finish(ctx, failure(ch, "LINGER " + linger + " ran out"), true);
            return;
        }
        ctx.executor().schedule(() -> check(ctx), POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * The close without {@code TCP_INFO} (NIO): once Netty's buffer has drained into the socket the output
     * ends and the channel closes, the kernel delivering the rest as it does for any Java socket.
     */
    private void checkDrained(ChannelHandlerContext ctx) {
        DuplexChannel ch = (DuplexChannel) ctx.channel();
        if (end.mayEnd(() -> { })) { // polled again below
            end.markSent();
            ch.shutdownOutput().addListener(f -> finish(ctx, null, true));
            return;
        }
        if (System.nanoTime() >= deadlineNanos) {
            finish(ctx, failure(ch, "LINGER " + linger + " ran out"), true);
            return;
        }
        ctx.executor().schedule(() -> check(ctx), POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * At most this many written bytes are unacknowledged now: unacknowledged segments × MSS counts the FIN's
     * segment as a full one, so the bound is capped by what the application wrote at all (a silent end that
     * the peer resets after our FIN lost nothing).
     */
    private long unacknowledgedBound(EpollSocketChannel ch) {
        long bound = LingeringChannels.unwrittenBytes(ch) + (long) info.unacked() * info.sndMss();
        ByteCountingHandler counter = ByteCountingHandler.of(ch);
        return counter != null ? Math.min(bound, counter.bytesSent()) : bound;
    }

    private UndeliveredDataException failure(Channel channel, String why) {
        if (!(channel instanceof EpollSocketChannel ch)) { // NIO: only Netty's own buffer is known
            return new UndeliveredDataException(channel.remoteAddress(), LingeringChannels.unwrittenBytes(channel), false, false, why);
        }
        long exact = exactlyUnacknowledged(ch);
        if (exact >= 0) {
            return new UndeliveredDataException(ch.remoteAddress(), exact, false, false, why);
        }
        long bound = unacknowledgedBound;
        if (bound < 0) { // never measured: everything written is the bound
            ByteCountingHandler counter = ByteCountingHandler.of(ch);
            bound = counter != null ? counter.bytesSent() : 0;
        }
        return new UndeliveredDataException(ch.remoteAddress(), bound, false, true, why);
    }

    /**
     * Bytes not acknowledged by the peer: what Netty still holds plus the kernel's unacknowledged send queue;
     * -1 when the socket is gone or the count cannot be had.
     */
    private static long exactlyUnacknowledged(EpollSocketChannel ch) {
        if (!ch.isOpen()) {
            return -1;
        }
        long kernel;
        try {
            IntByReference queued = new IntByReference();
            Libc.INSTANCE.ioctl(ch.fd().intValue(), new NativeLong(SIOCOUTQ), queued);
            kernel = queued.getValue();
        } catch (LinkageError | LastErrorException | ChannelException unavailable) {
            return -1;
        }
        if (ch.isOutputShutdown() && kernel > 0) {
            kernel--; // the FIN takes one sequence number
        }
        return LingeringChannels.unwrittenBytes(ch) + kernel;
    }

    private void finish(ChannelHandlerContext ctx, UndeliveredDataException failure, boolean close) {
        finished = true;
        List<ChannelPromise> waiting = new ArrayList<>(promises);
        promises.clear();
        ChannelPromise closed = ctx.newPromise();
        closed.addListener(f -> {
            for (ChannelPromise p : waiting) {
                if (failure == null) {
                    p.trySuccess();
                } else {
                    p.tryFailure(failure);
                }
            }
        });
        if (failure != null) {
            resetOnClose(ctx.channel());
        }
        if (close) {
            ctx.close(closed);
        } else {
            closed.setSuccess();
        }
    }

    private static void resetOnClose(Channel ch) {
        try {
            ch.config().setOption(ChannelOption.SO_LINGER, 0);
        } catch (ChannelException alreadyClosed) {
            // nothing left to reset
        }
    }

    /** The one C call Netty does not offer. */
    private interface Libc extends com.sun.jna.Library {
        Libc INSTANCE = Native.load("c", Libc.class);

        int ioctl(int fd, NativeLong request, IntByReference value) throws LastErrorException;
    }
}
