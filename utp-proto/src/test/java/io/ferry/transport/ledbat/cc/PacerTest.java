package io.ferry.transport.ledbat.cc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PacerTest {
    /** Sends 1000-byte packets whenever the pacer lets them for 100 ms of virtual time: {packets sent, wake-ups}. */
    private static int[] pace(Pacer pacer, long rate) {
        long now = 0;
        int sent = 0;
        int wakeUps = 0;
        while (now < 100_000_000L) {
            if (pacer.canSend(now, rate)) {
                pacer.onSent(1000, now, rate);
                sent++;
            } else {
                long next = pacer.nextSendTimeNanos(now, rate);
                assertTrue(next > now, "a held sender waits");
                now = next;
                wakeUps++;
            }
        }
        return new int[] {sent, wakeUps};
    }

    @Test
    void spreadsPacketsAtTheGivenRateAfterAShortBurst() {
        int sent = pace(new Pacer(2000), 1_000_000)[0]; // 1 MB/s: a 1000-byte packet per millisecond
        assertTrue(sent >= 100 && sent <= 103, "sent " + sent + " packets in 100 ms at 1 packet/ms");
    }

    @Test
    void atAHighRateItWakesForHalfABucketNotForEachPacket() {
        int[] r = pace(new Pacer(2000), 100_000_000); // 100 MB/s: a bucket of 100 kB, a 1000-byte packet every 10 us
        assertTrue(r[0] >= 9_900 && r[0] <= 10_200, "the rate holds: " + r[0] + " packets in 100 ms");
        assertTrue(r[1] <= 250, "runs of about 50 packets every 0.5 ms, not a timer per packet: " + r[1] + " wake-ups");
    }

    @Test
    void aDebtRunUpAtAHighRateIsNotRepaidAtALowOne() {
        Pacer pacer = new Pacer(2760);
        long fast = 1_000_000_000L; // 1 GB/s: a bucket of 1 MB
        for (int i = 0; i < 2000; i++) {
            pacer.onSent(1380, 0, fast); // sent whatever the pacer said: 2.76 MB, 1.76 MB in debt
        }
        long slow = 13_800; // the window fell to ten packets per 100 ms
        long next = pacer.nextSendTimeNanos(0, slow);
        // a debt of one bucket (2760 bytes) at the new rate, then half a bucket to send: 300 ms, not 128 s
        assertTrue(next <= 310_000_000L, "the debt is one bucket at the new rate: " + next);
        assertTrue(next >= 290_000_000L, "but it is repaid: " + next);
    }

    @Test
    void unlimitedRateNeverWaits() {
        Pacer pacer = new Pacer(2000);
        for (int i = 0; i < 1000; i++) {
            assertTrue(pacer.canSend(0, Long.MAX_VALUE));
            pacer.onSent(1500, 0, Long.MAX_VALUE);
        }
        assertEquals(5, pacer.nextSendTimeNanos(5, Long.MAX_VALUE));
    }
}
