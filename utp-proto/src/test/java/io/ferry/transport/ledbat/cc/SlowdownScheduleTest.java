package io.ferry.transport.ledbat.cc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SlowdownScheduleTest {

    private static final long MS = 1_000_000L;
    private static final long RTT = 100 * MS;

    @Test
    void theFirstSlowdownComesTwoRoundTripsAfterTheInitialSlowStart() {
        SlowdownSchedule s = new SlowdownSchedule(2, 9);
        assertFalse(s.isDue(0), "nothing is scheduled before a slow start ended");
        s.growthEnded(false, 1_000 * MS, RTT);
        assertFalse(s.isDue(1_199 * MS));
        assertTrue(s.isDue(1_200 * MS));
    }

    @Test
    void laterSlowdownsAreNineSlowdownLengthsApartAsTheDraftSays() {
        SlowdownSchedule s = new SlowdownSchedule(2, 9);
        s.growthEnded(false, 0, RTT);
        s.start(200 * MS);
        assertFalse(s.isDue(10_000 * MS), "the next one waits for the regrowth to end");
        s.growthEnded(true, 600 * MS, RTT); // 400 ms of slowdown and regrowth
        assertFalse(s.isDue(600 * MS + 9 * 400 * MS - 1));
        assertTrue(s.isDue(600 * MS + 9 * 400 * MS));
        assertEquals(1, s.count());
    }

    @Test
    void aSlowdownShorterThanARoundTripCountsAsOne() {
        SlowdownSchedule s = new SlowdownSchedule(2, 30);
        s.start(0);
        s.growthEnded(true, 10 * MS, RTT);
        assertFalse(s.isDue(10 * MS + 30 * RTT - 1));
        assertTrue(s.isDue(10 * MS + 30 * RTT));
    }

    @Test
    void aLaterSlowStartDoesNotPushTheInitialScheduleBack() {
        SlowdownSchedule s = new SlowdownSchedule(2, 9);
        s.growthEnded(false, 0, RTT);
        s.growthEnded(false, 150 * MS, RTT); // a loss ended another slow start meanwhile
        assertTrue(s.isDue(200 * MS));
    }

    @Test
    void aDrainedQueueElsewhereRestartsTheSlowdownClock() {
        SlowdownSchedule s = new SlowdownSchedule(2, 10);
        s.start(0);
        s.restartFrom(1_000 * MS); // a false alarm's yield drained the queue there
        assertEquals(500 * MS, s.sinceStartNanos(1_500 * MS));
        s.growthEnded(true, 1_500 * MS, RTT);
        assertTrue(s.isDue(1_500 * MS + 10 * 500 * MS));
        assertFalse(s.isDue(1_500 * MS + 10 * 500 * MS - 1));
    }
}
