package io.ferry.transport.ledbat.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The data path's timer table: one wake-up at the earliest armed deadline. */
class ConnectionTimersTest {

    @Test
    void theWakeUpIsTheEarliestArmedDeadline() {
        ConnectionTimers t = new ConnectionTimers();
        assertEquals(ConnectionTimers.NONE, t.earliest(), "nothing armed");
        t.retransmission = 500;
        t.pacing = 300;
        assertEquals(300, t.earliest());
        t.pacing = ConnectionTimers.NONE;
        t.tailLossProbe = 200;
        assertEquals(200, t.earliest());
        t.persist = 150;
        assertEquals(150, t.earliest());
        t.clear();
        assertEquals(ConnectionTimers.NONE, t.earliest());
    }
}
