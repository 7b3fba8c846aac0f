package io.ferry.transport.ledbat.core;

import io.ferry.transport.ledbat.wire.PacketReader;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketValidity;
import io.ferry.transport.ledbat.wire.PacketWriter;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** BEP 29's timestamp echo and the round trip two one-way delays give, whatever the offset between the clocks. */
class TimestampsTest {

    private static final long MS = 1_000_000L;

    /** A packet the peer sent at {@code theirMicros} on its clock, echoing {@code ourDelayMicros} (0: none). */
    private static void receive(Timestamps t, int theirMicros, int ourDelayMicros, long nowNanos) {
        ByteBuf p = Unpooled.buffer(UtpWire.HEADER_SIZE);
        try {
            PacketWriter.writeHeader(p, PacketType.STATE, UtpWire.EXTENSION_NONE, 7, theirMicros, ourDelayMicros, 65_536, 1, 1);
            PacketReader r = new PacketReader();
            assertEquals(PacketValidity.VALID, r.wrap(p));
            t.onPacket(r, nowNanos);
        } finally {
            p.release();
        }
    }

    @Test
    void theSumOfTheTwoOneWayDelaysIsTheRoundTripWhateverTheClockOffset() {
        Timestamps t = new Timestamps(UtpConfig.defaults());
        // the peer's clock is 5 s behind ours; each direction takes 10 ms
        long now = 100_000 * MS;
        int offsetMicros = -5_000_000;
        int theirSend = UtpWire.micros32(now - 10 * MS) + offsetMicros;
        // our last packet reached the peer after 10 ms of path, read on its clock: its delay includes the offset
        int ourDelay = 10_000 + offsetMicros;
        receive(t, theirSend, ourDelay, now);
        assertEquals(10_000 - offsetMicros, t.replyMicros(), "the echo is our reading of the peer's one-way delay");
        assertEquals(20 * MS, t.rttNanos(), "the offsets cancel: 10 ms each way");
        assertEquals(20 * MS, t.pathRtt().srttNanos());
    }

    @Test
    void noRoundTripWithoutBothTimestampsOrFromClockTrouble() {
        Timestamps t = new Timestamps(UtpConfig.defaults());
        long now = 100_000 * MS;
        receive(t, UtpWire.micros32(now - 3 * MS), 0, now);
        assertEquals(3_000, t.replyMicros());
        assertEquals(-1, t.rttNanos(), "the peer had not yet timed a packet of ours");

        receive(t, 0, 4_000, now);
        assertEquals(-1, t.rttNanos(), "no timestamp of the peer's: nothing to add to");
        assertEquals(3_000, t.replyMicros(), "and the echo keeps the last reading");

        receive(t, UtpWire.micros32(now - 3 * MS), (int) Timestamps.MAX_RTT_MICROS, now);
        assertEquals(-1, t.rttNanos(), "a round trip of a minute or more is taken for clock trouble");
        assertEquals(-1, t.pathRtt().srttNanos(), "and never sampled");
    }
}
