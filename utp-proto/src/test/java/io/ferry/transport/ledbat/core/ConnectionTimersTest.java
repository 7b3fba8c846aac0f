package io.ferry.transport.ledbat.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The timer table: one wake-up at the earliest armed deadline. */
class ConnectionTimersTest {

    @Test
    void theWakeUpIsTheEarliestArmedDeadlineAndLingerRunsAlone() {
        ConnectionTimers t = new ConnectionTimers();
        assertEquals(ConnectionTimers.NONE, t.earliest(), "nothing armed");
        t.retransmission = 500;
        t.pacing = 300;
        t.connect = 900;
        assertEquals(300, t.earliest());
        t.pacing = ConnectionTimers.NONE;
        t.tailLossProbe = 200;
        assertEquals(200, t.earliest());
        t.persist = 150;
        t.close = 100;
        assertEquals(100, t.earliest());
        t.linger = 1;
        assertEquals(100, t.earliest(), "the linger deadline is the connection's only one once it lingers");
        t.clear();
        assertEquals(ConnectionTimers.NONE, t.earliest());
        assertEquals(ConnectionTimers.NONE, t.linger);
    }
}
