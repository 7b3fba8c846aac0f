package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.ledbat.wire.UtpWire;

/**
 * BEP 29's timestamps for one connection: the one-way delay of the peer's last packet as measured here
 * (echoed as {@code timestamp_difference} in what this side sends), and the round trip that the two
 * one-way delays give together. Each one-way delay includes the offset between the two clocks, with
 * opposite signs, so their sum (mod 2^32) is a round trip without the peer's ACK delay, whatever
 * transmission it answers: what TCP's timestamp option gives a retransmission (RFC 7323 §4.1).
 *
 * <p>That round trip serves twice. A side that only receives, and so never times an acknowledgement of its
 * own data, reports it as its RTT ({@link #pathRtt}). And an acknowledgement that Karn's rule leaves without
 * a sample (the newest packet it covers was retransmitted) takes it instead ({@link #rttNanos}): without it
 * the RTO stays at its initial second until a packet goes through untouched, no tail-loss probe can be
 * armed under heavy loss, and a recovery that repairs hundreds of holes keeps the smoothed RTT of before
 * the loss, often inflated by the queue that caused it (on loopback 65-150 ms instead of one, which paced
 * the repairs at a few packets per 100 ms: 16 connections into one listener, one took 60 s for what the
 * others did in 2).
 */
final class Timestamps {

    /** Round trips at least this long are taken for clock trouble and ignored. */
    static final long MAX_RTT_MICROS = 60_000_000L;

    private final RttEstimator pathRtt;
    private int replyMicros;
    private long rttNanos = -1;

    Timestamps(UtpConfig config) {
        this.pathRtt = new RttEstimator(config.minRtoNanos(), config.maxRtoNanos());
    }

    /**
     * Reads the timestamps of a packet the peer sent: its own for the echo, and with the delay it measured
     * of ours, a round trip ({@link #rttNanos}).
     */
    void onPacket(PacketReader packet, long nowNanos) {
        rttNanos = -1;
        int theirTimestamp = packet.timestampMicros();
        if (theirTimestamp == 0) {
            return;
        }
        int delay = UtpWire.micros32(nowNanos) - theirTimestamp;
        replyMicros = delay == 0 ? 1 : delay;
        int ourDelay = packet.timestampDifferenceMicros();
        if (ourDelay != 0) {
            long micros = Integer.toUnsignedLong(ourDelay + replyMicros);
            if (micros > 0 && micros < MAX_RTT_MICROS) {
                rttNanos = micros * 1000;
                pathRtt.onSample(rttNanos);
            }
        }
    }

    /** The one-way delay of the peer's last timed packet, for the {@code timestamp_difference} field (0 before any). */
    int replyMicros() {
        return replyMicros;
    }

    /** The round trip the last packet's timestamps gave, or -1 if they gave none. */
    long rttNanos() {
        return rttNanos;
    }

    /** The round trip smoothed over every timed packet received: the RTT of a side that only receives. */
    RttEstimator pathRtt() {
        return pathRtt;
    }
}
