package io.ferry.transport.ledbat.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A connection's phases and the deadlines each one owns. */
class LifecycleTest {

    @Test
    void anInitiatorConnectsBeforeItsDeadlineOrTimesOut() {
        Lifecycle late = Lifecycle.initiator(1_000, 50);
        assertEquals(ConnectionState.SYN_SENT, late.state());
        assertEquals(1_000, late.nextDeadlineNanos());
        assertEquals(Lifecycle.Due.NOTHING, late.due(999));
        assertEquals(Lifecycle.Due.CONNECT_TIMEOUT, late.due(1_000));

        Lifecycle made = Lifecycle.initiator(1_000, 50);
        made.established();
        assertEquals(ConnectionState.CONNECTED, made.state());
        assertEquals(Long.MAX_VALUE, made.nextDeadlineNanos(), "the connect deadline is gone with the handshake");
        assertEquals(Lifecycle.Due.NOTHING, made.due(5_000));
    }

    @Test
    void anAcceptorIsHalfOpenUntilItsPeerIsConfirmed() {
        Lifecycle acceptor = Lifecycle.acceptor(700, 50);
        assertEquals(ConnectionState.CONNECTED, acceptor.state());
        assertEquals(Lifecycle.Due.CONNECT_TIMEOUT, acceptor.due(700));
        acceptor.peerConfirmed();
        assertEquals(Lifecycle.Due.NOTHING, acceptor.due(10_000));
    }

    @Test
    void afterACloseThePeersFinIsDueByTheCloseTimeoutOnlyOnce() {
        Lifecycle life = Lifecycle.initiator(100, 50);
        life.established();
        life.awaitPeerFin(200, 1_000);
        assertEquals(Long.MAX_VALUE, life.nextDeadlineNanos(), "no close was asked: a half-close waits as long as the peer likes");
        assertTrue(life.requestClose());
        assertFalse(life.requestClose(), "asked once");
        life.awaitPeerFin(300, 1_000);
        life.awaitPeerFin(900, 1_000);
        assertEquals(1_300, life.nextDeadlineNanos(), "armed by the first acknowledgement of our FIN, not moved by later ones");
        assertEquals(Lifecycle.Due.CLOSE_TIMEOUT, life.due(1_300));
    }

    @Test
    void timeWaitIsClosedForTheApplicationAndEndsAfterItsQuietPeriod() {
        Lifecycle life = Lifecycle.initiator(100, 50);
        life.established();
        life.enterTimeWait(1_000);
        assertTrue(life.isClosed());
        assertFalse(life.isTerminated());
        assertEquals(1_050, life.nextDeadlineNanos());
        life.restartTimeWait(1_040);
        assertEquals(Lifecycle.Due.NOTHING, life.due(1_050), "a retransmitted FIN restarted the quiet period");
        assertEquals(Lifecycle.Due.TIME_WAIT_OVER, life.due(1_090));
        assertTrue(life.isTerminated());
        assertFalse(life.terminate(), "already closed: nothing more to report");
    }

    @Test
    void terminatingAnOpenConnectionSaysItsCloseIsToBeReported() {
        Lifecycle life = Lifecycle.acceptor(100, 50);
        assertTrue(life.terminate());
        assertEquals(Long.MAX_VALUE, life.nextDeadlineNanos());
    }
}
