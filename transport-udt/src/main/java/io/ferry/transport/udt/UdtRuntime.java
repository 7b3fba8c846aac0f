package io.ferry.transport.udt;

import com.barchart.udt.ExceptionUDT;
import com.barchart.udt.SocketUDT;
import com.barchart.udt.nio.ChannelUDT;
import com.barchart.udt.nio.ServerSocketChannelUDT;
import com.barchart.udt.nio.SocketChannelUDT;

import java.io.IOException;
import java.nio.channels.Channel;
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
        }
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
