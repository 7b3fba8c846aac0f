package io.ferry.transport.udt;

import com.barchart.udt.ExceptionUDT;
import com.barchart.udt.MonitorUDT;
import com.barchart.udt.SocketUDT;
import io.ferry.transport.TransportStatistics;

/**
 * A UDT connection's figures for {@link TransportStatistics}, read from UDT's performance monitor. The
 * last reading is kept, so statistics asked for after the close still say what was known at it (the
 * channel reads once more just before it closes the socket).
 */
final class UdtMonitor {

    private final SocketUDT socket;
    private final UdtChannelConfig config;
    private volatile Figures last;

    private record Figures(double rttMillis, int window, long retransmitted, long lost, double mbps, double periodMicros) {
    }

    UdtMonitor(SocketUDT socket, UdtChannelConfig config) {
        this.socket = socket;
        this.config = config;
    }

    /** Reads the monitor now, keeping the figures; false if the socket is gone. */
    boolean read() {
        try {
            socket.updateMonitor(false);
            MonitorUDT m = socket.monitor();
            last = new Figures(m.currentMillisRTT(), m.currentCongestionWindow(), m.globalRetransmittedTotal(),
                    m.globalSenderLost(), m.currentMbpsBandwidth(), m.currentSendPeriod());
            return true;
        } catch (ExceptionUDT | RuntimeException closedMeanwhile) {
            return false;
        }
    }

    /** Adds the monitor's figures to {@code b}: read now while {@code open}, else (or if that fails) the last. */
    TransportStatistics.Builder addTo(TransportStatistics.Builder b, boolean open) {
        if (open) {
            read();
        }
        Figures m = last;
        if (m == null) {
            return b;
        }
        int payloadBytes = config.settings().mss - UdtSettings.HEADERS; // a client's MSS follows its route
        if (m.rttMillis() > 0) {
            b.smoothedRttMicros((long) (m.rttMillis() * 1000));
        }
        b.congestionWindowBytes((long) Math.max(0, m.window()) * payloadBytes);
        b.retransmissions(Math.max(0, m.retransmitted()));
        b.packetsLost(Math.max(0, m.lost()));
        if (m.mbps() > 0) {
            b.estimatedBandwidth((long) (m.mbps() * 1e6 / 8));
        }
        if (m.periodMicros() > 0) {
            b.sendRate((long) (payloadBytes * 1e6 / m.periodMicros()));
        }
        return b;
    }
}
