package io.ferry.transport.striped;

import io.ferry.transport.UndeliveredDataException;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A striped channel's graceful close, member by member: each member closes once it has written what it
 * was given (its own close then lingers for the acknowledgements), and what the members could not
 * deliver is added up into the striped channel's own loss.
 */
final class StripedClose {
    private StripedClose() {
    }

    /**
     * Closes every member gracefully, each with {@code linger} ({@link #closeMember}), and gives
     * {@code whenClosed} their closes, in member order, once all completed (on the loop that completed the last).
     */
    static void closeAll(StripeMember[] members, Duration linger, StripedTransport transport, Consumer<List<Future<Void>>> whenClosed) {
        List<Future<Void>> closes = new ArrayList<>();
        for (StripeMember m : members) {
            closes.add(closeMember(m, linger, transport));
        }
        AtomicInteger left = new AtomicInteger(closes.size());
        for (Future<Void> f : closes) {
            f.addListener(done -> {
                if (left.decrementAndGet() == 0) {
                    whenClosed.accept(closes);
                }
            });
        }
    }

    /**
     * Closes a member once it has written what it was given, or after the linger if its writes cannot
     * drain, so that a dead path still ends.
     */
    static Future<Void> closeMember(StripeMember m, Duration linger, StripedTransport transport) {
        Channel ch = m.channel;
        io.netty.util.concurrent.Promise<Void> result = ch.eventLoop().newPromise();
        AtomicBoolean started = new AtomicBoolean();
        Runnable close = () -> {
            if (started.compareAndSet(false, true)) {
                m.keepStatistics(transport);
                ch.close().addListener(f -> {
                    if (f.isSuccess()) {
                        result.trySuccess(null);
                    } else {
                        result.tryFailure(f.cause());
                    }
                });
            }
        };
        if (!ch.isActive()) {
            close.run();
            return result;
        }
        ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> close.run());
        if (!linger.isZero()) {
            ch.eventLoop().schedule(close, linger.toMillis(), TimeUnit.MILLISECONDS);
        } else {
            close.run();
        }
        return result;
    }

    /**
     * What the striped channel's close reports once every member's close completed: null, the first
     * member failure that was no loss, or an {@link UndeliveredDataException} for what the members could
     * not deliver (added to {@code losses}, each member's own). Over more than one member a member's loss
     * leaves a gap in the stream, and every byte from the first gap on may be missing at the peer.
     */
    static Throwable outcome(List<Future<Void>> memberCloses, StripeMember[] members, boolean framed, long sendOffset,
                             SocketAddress remote, List<UndeliveredDataException> losses) {
        long unacknowledged = 0;
        boolean estimated = false;
        List<String> why = new ArrayList<>();
        Throwable other = null;
        for (int i = 0; i < memberCloses.size(); i++) {
            Throwable cause = memberCloses.get(i).cause();
            if (cause instanceof UndeliveredDataException) {
                UndeliveredDataException loss = (UndeliveredDataException) cause;
                losses.add(loss);
                unacknowledged += loss.unacknowledgedBytes();
                estimated |= loss.isEstimated();
                why.add("member " + i + ": " + loss.getMessage());
            } else if (cause != null && other == null) {
                other = cause;
            }
        }
        if (framed && !losses.isEmpty()) {
            long firstGap = sendOffset;
            for (int i = 0; i < memberCloses.size(); i++) {
                Throwable cause = memberCloses.get(i).cause();
                if (cause instanceof UndeliveredDataException) {
                    firstGap = Math.min(firstGap, members[i].firstUndelivered(
                            ((UndeliveredDataException) cause).unacknowledgedBytes(), sendOffset));
                }
            }
            unacknowledged = sendOffset - firstGap;
            estimated = true;
        }
        return losses.isEmpty() ? other
                : new UndeliveredDataException(remote, unacknowledged, false, estimated,
                        losses.size() + " of " + members.length + " member connections could not deliver everything ("
                                + String.join("; ", why) + ")");
    }
}
