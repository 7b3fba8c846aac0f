package io.ferry.transport.ledbat.cc;

/**
 * Whether a window-based controller's window was in use when an acknowledgement arrived, the test
 * RFC 7661 (congestion window validation) asks for before the window grows: a sender that had nothing
 * to send earns no window, or an idle connection would come back with a window the path never
 * carried. The window counts as used when the flight filled it to within one packet, or when the
 * connection's pacer held data back ({@link CongestionControl#onPacerHeld}).
 */
final class CwndValidation {
    private CwndValidation() {
    }

    static boolean windowUsed(long bytesInFlightBeforeAck, double cwndBytes, int mss, boolean pacerHeld) {
        return pacerHeld || bytesInFlightBeforeAck + mss >= cwndBytes;
    }
}
