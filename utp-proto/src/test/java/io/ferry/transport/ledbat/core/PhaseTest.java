package io.ferry.transport.ledbat.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A connection's phases, the deadline each one carries and the transitions that move them. */
class PhaseTest {

    private static final long NONE = Long.MAX_VALUE;

    @Test
    void anInitiatorsHandshakeCarriesTheConnectDeadlineAndEstablishingDropsIt() {
        Phase late = new Phase.SynSent(1_000);
        assertEquals(ConnectionState.SYN_SENT, late.state());
        assertEquals(1_000, late.deadline());
        assertFalse(late.isEstablished());
        assertSame(late, late.closeRequested(), "a close before the handshake is an abort, not a phase");

        Phase made = Phase.Established.CONFIRMED;
        assertEquals(ConnectionState.CONNECTED, made.state());
        assertEquals(NONE, made.deadline(), "the connect deadline is gone with the handshake");
    }

    @Test
    void anAcceptorIsHalfOpenUntilItsPeerIsConfirmed() {
        Phase acceptor = new Phase.Established(700);
        assertEquals(ConnectionState.CONNECTED, acceptor.state());
        assertEquals(700, acceptor.deadline());
        assertEquals(NONE, acceptor.peerConfirmed().deadline());
        Phase closing = acceptor.closeRequested();
        assertEquals(700, closing.deadline(), "a close does not lift the half-open deadline");
        assertEquals(NONE, closing.peerConfirmed().deadline());
    }

    @Test
    void afterACloseThePeersFinIsDueByTheCloseTimeoutOnlyOnce() {
        Phase open = Phase.Established.CONFIRMED;
        assertSame(open, open.awaitPeerFin(200, 1_000), "no close was asked: a half-close waits as long as the peer likes");
        Phase closing = open.closeRequested();
        assertTrue(closing instanceof Phase.Closing);
        assertSame(closing, closing.closeRequested(), "asked once");
        Phase due = closing.awaitPeerFin(300, 1_000).awaitPeerFin(900, 1_000);
        assertEquals(1_300, due.deadline(), "armed by the first acknowledgement of our FIN, not moved by later ones");
        assertTrue(due.isEstablished());
        assertFalse(due.isClosed());
    }

    @Test
    void timeWaitIsClosedForTheApplicationAndEndsAfterItsQuietPeriod() {
        Phase quiet = new Phase.TimeWait(1_050);
        assertTrue(quiet.isClosed());
        assertFalse(quiet.isEstablished());
        assertEquals(ConnectionState.TIME_WAIT, quiet.state());
        assertEquals(1_050, quiet.deadline());
        assertSame(quiet, quiet.peerConfirmed());
        assertSame(quiet, quiet.closeRequested());
    }

    @Test
    void theEndCarriesItsCauseAndNoDeadline() {
        UtpException cause = new UtpException(UtpException.Reason.RESET_BY_PEER, "reset");
        Phase.Closed over = new Phase.Closed(cause);
        assertTrue(over.isClosed());
        assertEquals(ConnectionState.TERMINATED, over.state());
        assertEquals(NONE, over.deadline());
        assertSame(cause, over.cause());
    }

    @Test
    void theTimerTableAnswersItsEarliestDeadlineAndWhatExpired() {
        TimerTable timers = new TimerTable();
        assertEquals(NONE, timers.next());
        timers.set(TimerTable.Timer.PACING, 500);
        timers.set(TimerTable.Timer.RETRANSMISSION, 300);
        assertEquals(300, timers.next());
        assertTrue(timers.isExpired(TimerTable.Timer.RETRANSMISSION, 300));
        assertFalse(timers.isExpired(TimerTable.Timer.PACING, 300));
    }
}
