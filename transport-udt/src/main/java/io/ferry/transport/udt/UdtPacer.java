package io.ferry.transport.udt;

import com.barchart.udt.ExceptionUDT;
import com.barchart.udt.MonitorUDT;
import com.barchart.udt.OptionUDT;
import com.barchart.udt.SocketUDT;
import io.netty.channel.EventLoop;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Drives Ferry's rate control for one UDT connection: every {@link #TICK_MILLIS} it reads UDT's monitor
 * into {@link DelayRateControl}, sets the rate it gives as {@code UDT_MAXBW}, and hands the window bound
 * and the repair timer's inputs to the connection's {@link PacedCcc}. Runs on the channel's event loop
 * from the first write until the channel closes.
 */
final class UdtPacer {

    /** How often the rate control reads UDT's monitor: UDT acknowledges every 10 ms. */
    static final long TICK_MILLIS = 10;

    private final SocketUDT socket;
    private final UdtChannelConfig config;
    private final BooleanSupplier open;
    private final DelayRateControl control;
    /** The connection's own control, whose window the rate control bounds; null if UDT runs another. */
    private final PacedCcc pacedCcc;
    private long pacedRate;
    private double pacedWindow;
    private ScheduledFuture<?> tick;

    private UdtPacer(SocketUDT socket, UdtChannelConfig config, BooleanSupplier open) {
        this.socket = socket;
        this.config = config;
        this.open = open;
        this.control = new DelayRateControl(config.settings().mss, config.rateCeiling());
        this.pacedRate = control.bytesPerSecond();
        PacedCcc paced;
        try {
            Object cc = socket.getOption(OptionUDT.UDT_CC);
            paced = cc instanceof PacedCcc p ? p : null;
        } catch (ExceptionUDT closedMeanwhile) {
            paced = null;
        }
        this.pacedCcc = paced;
    }

    /** Starts pacing {@code socket} on {@code loop} until {@code open} says the channel has closed. */
    static UdtPacer start(SocketUDT socket, UdtChannelConfig config, EventLoop loop, BooleanSupplier open) {
        UdtPacer pacer = new UdtPacer(socket, config, open);
        pacer.tick = loop.scheduleAtFixedRate(pacer::pace, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        return pacer;
    }

    /** One reading of UDT's monitor into the rate control, and the rate it gives into UDT_MAXBW. */
    private void pace() {
        if (!open.getAsBoolean()) {
            tick.cancel(false);
            return;
        }
        try {
            socket.updateMonitor(false);
            MonitorUDT m = socket.monitor();
            long sent = m.globalSentTotal();
            long acked = sent - Math.max(0, m.globalRetransmittedTotal()) - Math.max(0, m.currentFlightSize());
            control.ceiling(config.rateCeiling());
            long rate = control.onSample(System.nanoTime(), m.currentMillisRTT(), sent, Math.max(0, m.globalSenderLost()), acked,
                    Math.max(0, m.globalReceivedAckTotal()));
            if (Math.abs(rate - pacedRate) * 100 > pacedRate) {
                socket.setOption(OptionUDT.UDT_MAXBW, rate);
                pacedRate = rate;
            }
            double window = control.windowPackets(m.currentMillisRTT());
            boolean boundChanged = Double.isInfinite(window) || Double.isInfinite(pacedWindow)
                    ? window != pacedWindow : Math.abs(window - pacedWindow) * 20 > pacedWindow;
            if (pacedCcc != null && boundChanged) {
                pacedCcc.window(window);
                pacedWindow = window;
            }
            if (pacedCcc != null) {
                pacedCcc.repairTimer(System.nanoTime(), m.currentMillisRTT(), m.currentFlowWindow() >= m.currentCongestionWindow(),
                        Math.max(0, m.globalReceivedAckTotal()), Math.max(0, m.globalReceivedNakTotal()));
            }
        } catch (ExceptionUDT closedMeanwhile) {
            tick.cancel(false);
        }
    }

    /** The rate control's state, for logs and tests. */
    @Override
    public String toString() {
        return control.toString();
    }
}
