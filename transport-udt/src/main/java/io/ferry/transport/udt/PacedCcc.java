package io.ferry.transport.udt;

import com.barchart.udt.CCC;
import com.barchart.udt.FactoryInterfaceUDT;
import com.barchart.udt.FactoryUDT;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The congestion control UDT runs for {@code CONGESTION_CONTROL=ferry}: it sets no rate of its own
 * and leaves the pace to {@code UDT_MAXBW}, which {@link DelayRateControl} sets from the channel.
 *
 * <p>barchart-udt 2.3.0 hands a Java {@link CCC} only {@code init}, {@code onTimeout} and {@code close}
 * (its native side never forwards {@code onACK} or {@code onLoss}), and a rate written through
 * {@code UDT_MAXBW} only takes effect as a floor under the packet period this class sets, at UDT's next
 * rate update (every acknowledgement). So this class starts the connection at
 * {@link DelayRateControl#INITIAL_BYTES_PER_SECOND} for its first packets, and 20 ms later, well after
 * UDT has copied that period, drops its own period to almost nothing: from then on the rate is exactly
 * the {@code UDT_MAXBW} the channel keeps writing. The window starts as the flow window; the channel then
 * bounds it to a few round trips of its rate ({@link #window(double)}, see {@link DelayRateControl#windowPackets}),
 * and sets the retransmission timer a lost repair waits for ({@link RepairTimeout}).
 * Native calls stop at {@link #close()}: UDT frees the native half soon after. Every method UDT's threads call here first makes the thread detach from the
 * JVM when it ends ({@link AttachedThreads}).
 */
public final class PacedCcc extends CCC {

    /** A period short enough that {@code UDT_MAXBW} alone sets the pace: 0.1 µs, 15 GB/s. */
    static final double OPEN_PERIOD_MICROS = 0.1;
    static final long OPEN_AFTER_MILLIS = 20;

    private static final ScheduledExecutorService OPENER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ferry-udt-pacing");
        t.setDaemon(true);
        return t;
    });

    private final double initialPeriodMicros;
    private final double window;
    private boolean closed;
    /** The repair timer's inputs ({@link RepairTimeout}), from the channel and from UDT's expiries. */
    private double rttMs = DelayRateControl.UDT_INITIAL_RTT_MS;
    private boolean holeLikely;
    private long peerResponses = -1;
    /** NAKs received so far, and when their count last rose (0: never): the sign of a path losing packets. */
    private long naks;
    private long lastNakNanos;
    private int silentExpiries;
    private int rtoMicros = -1;

    PacedCcc(int mss, int flowWindow) {
        this.initialPeriodMicros = mss * 1e6 / DelayRateControl.INITIAL_BYTES_PER_SECOND;
        this.window = flowWindow;
    }

    /** For barchart's reflective factory; Ferry's factory passes the connection's MSS and window. */
    public PacedCcc() {
        this(UdtSettings.DEFAULT_MSS, UdtSettings.DEFAULT_FLOW_WINDOW);
    }

    @Override
    public void init() {
        AttachedThreads.detachAtExit();
        synchronized (this) {
            setCWndSize(window);
            setPacketSndPeriod(initialPeriodMicros);
        }
        OPENER.schedule(this::open, OPEN_AFTER_MILLIS, TimeUnit.MILLISECONDS);
    }

    private synchronized void open() {
        if (!closed) {
            setPacketSndPeriod(OPEN_PERIOD_MICROS);
        }
    }

    /**
     * Bounds the packets in flight (UDT applies it at its next timer check), at most to the flow window
     * this control started with (infinity means that); nothing once UDT closed
     * this control, whose native half it frees soon after. Called from the channel's event loop.
     */
    synchronized void window(double packets) {
        if (!closed) {
            setCWndSize(Math.min(packets, window));
        }
    }

    /**
     * What the repair timer needs from the channel (its event loop, every rate tick): UDT's RTT, whether
     * the sender's own window (not the peer's) bounds it, and the acknowledgements and NAKs received so
     * far. A change in either means the peer answered (the expiries count from zero again); NAKs in the
     * last {@link RepairTimeout#RECENT_LOSS_NANOS} mean the path is losing packets, and with the sender's
     * own window binding a silent peer is then likely stuck at a hole (see {@link RepairTimeout#micros}).
     */
    synchronized void repairTimer(long nowNanos, double rttMs, boolean ownWindowBinds, long acks, long naks) {
        if (naks != this.naks) {
            this.naks = naks;
            lastNakNanos = nowNanos;
        }
        long responses = acks + naks;
        if (responses != peerResponses) {
            peerResponses = responses;
            silentExpiries = 0;
        }
        this.rttMs = rttMs;
        this.holeLikely = ownWindowBinds && lastNakNanos != 0 && nowNanos - lastNakNanos < RepairTimeout.RECENT_LOSS_NANOS;
        applyTimeout();
    }

    @Override
    public void onTimeout() {
        AttachedThreads.detachAtExit();
        // UDT retransmits what is unacknowledged; the rate stays with the channel's control
        synchronized (this) {
            silentExpiries++;
            applyTimeout();
        }
    }

    private void applyTimeout() {
        if (closed || peerResponses < 0) {
            return; // UDT's own timer until the channel's first reading
        }
        int micros = RepairTimeout.micros(rttMs, silentExpiries, holeLikely);
        if (micros != rtoMicros) {
            setRTO(micros);
            rtoMicros = micros;
        }
    }

    @Override
    public synchronized void close() {
        AttachedThreads.detachAtExit();
        closed = true;
    }

    /** Creates one {@link PacedCcc} per connection; UDT clones it for each socket it applies to. */
    static final class Factory extends FactoryUDT<PacedCcc> {
        private final int mss;
        private final int flowWindow;

        Factory(int mss, int flowWindow) {
            super(PacedCcc.class);
            this.mss = mss;
            this.flowWindow = flowWindow;
        }

        @Override
        public CCC create() {
            AttachedThreads.detachAtExit();
            return new PacedCcc(mss, flowWindow);
        }

        @Override
        public FactoryInterfaceUDT cloneFactory() {
            AttachedThreads.detachAtExit();
            return new Factory(mss, flowWindow);
        }
    }
}
