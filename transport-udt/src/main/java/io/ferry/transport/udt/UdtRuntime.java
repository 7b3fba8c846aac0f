package io.ferry.transport.udt;

import com.barchart.udt.ExceptionUDT;
import com.barchart.udt.OptionUDT;
import com.barchart.udt.SocketUDT;
import com.barchart.udt.TypeUDT;
import com.barchart.udt.nio.ChannelUDT;
import com.barchart.udt.nio.ServerSocketChannelUDT;
import com.barchart.udt.nio.SocketChannelUDT;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * UDT's native runtime (its garbage-collector thread and one sender and one receiver thread per UDP
 * port) runs from {@code UDT::startup()} until {@code UDT::cleanup()}. Ferry counts what holds it: every
 * open UDT socket and every open {@link UdtTransport}. When the count falls to zero it calls
 * {@link SocketUDT#cleanup()}, so no UDT thread outlives the last Ferry UDT transport and its channels;
 * the next user starts the runtime again.
 *
 * <p>Code that uses barchart-udt directly in the same JVM should hold the runtime with
 * {@link #hold()} while it does, or Ferry may stop it underneath.
 */
public final class UdtRuntime {

    private static final Object LOCK = new Object();
    private static int holders;
    private static boolean running;
    private static long restarts;
    private static boolean cleanedUp;

    private UdtRuntime() {
    }

    /**
     * Holds UDT's native runtime until the returned handle is closed (idempotent).
     *
     * @throws io.ferry.transport.TransportUnavailableException if UDT's native library cannot run here
     */
    public static Hold hold() {
        synchronized (LOCK) {
            acquire();
            return new Hold();
        }
    }

    /** A claim on the native runtime; closing it more than once has no further effect. */
    public static final class Hold implements AutoCloseable {
        private boolean closed;

        private Hold() {
        }

        @Override
        public void close() {
            synchronized (LOCK) {
                if (!closed) {
                    closed = true;
                    release();
                }
            }
        }
    }

    /** Whether UDT's native threads are running. */
    public static boolean isRunning() {
        synchronized (LOCK) {
            return running;
        }
    }

    /** How many sockets and transports hold the runtime now. */
    static int holders() {
        synchronized (LOCK) {
            return holders;
        }
    }

    /** How many times the runtime was started again after a cleanup. */
    static long restarts() {
        synchronized (LOCK) {
            return restarts;
        }
    }

    /** Opens one barchart channel (stream or message, connector or listener). */
    interface Opener<C extends ChannelUDT> {
        C open() throws IOException;
    }

    /**
     * Opens a UDT socket that holds the runtime, writes the settings to it and wraps it in a Netty
     * channel; if any step fails, the socket is closed and released again.
     */
    static <C extends ChannelUDT, R> R open(Opener<C> opener, UdtSettings settings, Function<C, R> wrap) throws IOException {
        C opened;
        synchronized (LOCK) {
            acquire();
            try {
                if (settings.usesFerryRateControl()) {
                    anchorGarbageCollectorThread();
                }
                opened = opener.open();
            } catch (IOException | RuntimeException e) {
                release();
                throw e;
            }
        }
        try {
            settings.applyTo(opened.socketUDT());
            return wrap.apply(opened);
        } catch (IOException | RuntimeException e) {
            closeAndRelease(opened, new AtomicBoolean());
            throw e;
        }
    }

    /** Closes a socket and releases its hold on the runtime, once, whatever the close reports. */
    static void closeAndRelease(Channel socket, AtomicBoolean released) {
        try {
            socket.close();
        } catch (IOException ignore) {
            // the native socket is gone either way
        } finally {
            if (released.compareAndSet(false, true)) {
                released();
            }
        }
    }

    /** Accepts a pending connection; the accepted socket holds the runtime like any other. */
    static SocketChannelUDT accept(ServerSocketChannelUDT server) throws IOException {
        synchronized (LOCK) {
            SocketChannelUDT accepted = server.accept();
            if (accepted != null) {
                holders++;
            }
            return accepted;
        }
    }

    /** Called once per socket after it has been closed, and once per transport after it has stopped. */
    static void released() {
        synchronized (LOCK) {
            release();
        }
    }

    static void acquired() {
        synchronized (LOCK) {
            acquire();
        }
    }

    private static void acquire() {
        UdtNativeLibrary.load();
        if (!running) {
            if (cleanedUp) {
                Restart.start();
                restarts++;
            }
            running = true;
        }
        holders++;
    }

    private static void release() {
        if (holders <= 0) {
            throw new IllegalStateException("UDT runtime released more often than acquired");
        }
        if (--holders == 0 && running) {
            try {
                SocketUDT.cleanup();
            } catch (ExceptionUDT e) {
                // cleanup only fails when the runtime was not started; nothing is left running either way
            }
            running = false;
            cleanedUp = true;
            anchored = false;
        }
    }

    /*
     * UDT's garbage-collector thread deletes every closed socket, and barchart's JNI attaches it to the
     * JVM when that socket had a Java congestion control (PacedCcc), without ever running Java code of
     * Ferry's there: nothing could make it detach (AttachedThreads), and when cleanup ends it, it would
     * stay in the JVM as a dead non-daemon thread, keeping the JVM from exiting. One idle loopback
     * connection under PacedCcc, opened with the first such socket and left connected, fixes that: at
     * cleanup the garbage collector closes every socket still open itself, so PacedCcc.close() runs on
     * it, and the thread detaches as it ends. The connection costs two loopback UDP ports and their two
     * UDT threads while the runtime runs. Its Java objects are kept for good: barchart's finalizer would
     * otherwise close socket ids that belong to nothing, or to a later socket.
     */
    private static boolean anchored;
    private static final List<SocketUDT> ANCHORS = new ArrayList<>();
    private static final int ANCHOR_BUFFER = 64 * 1024;

    private static void anchorGarbageCollectorThread() {
        if (anchored || !AttachedThreads.available() || !UdtNativeLibrary.javaCongestionControlSafe()) {
            return;
        }
        List<SocketUDT> opened = new ArrayList<>();
        try {
            SocketUDT listener = anchorSocket(opened);
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            listener.listen(1);
            SocketUDT client = anchorSocket(opened);
            client.setOption(OptionUDT.UDT_CC, new PacedCcc.Factory(UdtSettings.DEFAULT_MSS, 32));
            client.connect(listener.getLocalSocketAddress());
            opened.add(listener.accept());
            anchored = true;
            ANCHORS.addAll(opened);
        } catch (ExceptionUDT | RuntimeException e) {
            for (SocketUDT socket : opened) {
                try {
                    socket.close();
                } catch (ExceptionUDT ignore) {
                    // gone either way
                }
            }
            ANCHORS.addAll(opened);
            throw new IllegalStateException("UDT could not open the loopback connection that lets its threads leave the JVM: "
                    + e.getMessage(), e);
        }
    }

    private static SocketUDT anchorSocket(List<SocketUDT> opened) throws ExceptionUDT {
        SocketUDT socket = new SocketUDT(TypeUDT.STREAM);
        opened.add(socket);
        socket.setBlocking(true);
        socket.setOption(OptionUDT.UDT_SNDBUF, ANCHOR_BUFFER);
        socket.setOption(OptionUDT.UDT_RCVBUF, ANCHOR_BUFFER);
        socket.setOption(OptionUDT.UDP_SNDBUF, ANCHOR_BUFFER);
        socket.setOption(OptionUDT.UDP_RCVBUF, ANCHOR_BUFFER);
        return socket;
    }

    /**
     * barchart runs {@code UDT::startup()} and caches its JNI references once, in {@code SocketUDT}'s
     * static initialiser, while {@link SocketUDT#cleanup()} releases both. Its protected
     * {@code initClass0} does the same work again; a subclass is the way to reach it.
     */
    private static final class Restart extends SocketUDT {
        private Restart() throws ExceptionUDT {
            super(null);
        }

        static void start() {
            try {
                initClass0();
            } catch (ExceptionUDT e) {
                throw new IllegalStateException("UDT's native runtime could not be restarted: " + e.getMessage(), e);
            }
        }
    }
}
