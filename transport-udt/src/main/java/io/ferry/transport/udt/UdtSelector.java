package io.ferry.transport.udt;

import com.barchart.udt.ExceptionUDT;
import com.barchart.udt.SocketUDT;
import com.barchart.udt.nio.SelectorProviderUDT;
import com.barchart.udt.nio.SelectorUDT;

import java.nio.channels.Selector;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * barchart's UDT selector with a wakeup that works and readiness seen within about a millisecond.
 *
 * <p>UDT4's {@code epoll_wait} re-checks readiness only when its internal event fires (on accept, close
 * and broken connections: not on data or acknowledgements) or every 10 ms, and barchart's selector checks
 * {@code wakeup()} only between such 10 ms waits, after clearing any wakeup that came just before it
 * blocked. So a task handed to the event loop from another thread (a write from an application thread)
 * waited up to 10 ms, or until the next timer, and an application thread producing into a UDT channel ran
 * at one write-buffer's worth per 10 ms (37 Mbit/s with Netty's 64 KiB water mark).
 *
 * <p>This selector never blocks inside UDT: it polls UDT's epoll without waiting and parks the loop thread
 * in between, starting at {@value #MIN_PAUSE_MICROS} µs and doubling to {@value #MAX_PAUSE_MICROS} µs while
 * nothing is ready; {@link #wakeup()} unparks it at once, and a wakeup is never lost (it is a flag the next
 * select consumes, as {@link Selector} specifies). An idle loop costs one non-blocking UDT poll per
 * {@value #MAX_PAUSE_MICROS} µs.
 */
final class UdtSelector extends SelectorUDT {

    static final long MIN_PAUSE_MICROS = 50;
    static final long MAX_PAUSE_MICROS = 2_000;

    private final AtomicBoolean woken = new AtomicBoolean();
    private volatile Thread selecting;

    UdtSelector(SelectorProviderUDT provider) throws ExceptionUDT {
        super(provider, SocketUDT.DEFAULT_MAX_SELECTOR_SIZE);
    }

    @Override
    protected int doEpollSelect(long millisTimeout) throws ExceptionUDT {
        if (millisTimeout == 0) {
            woken.set(false);
            return doEpollSelectUDT(0);
        }
        long deadline = millisTimeout < 0 ? Long.MAX_VALUE : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millisTimeout);
        long pause = TimeUnit.MICROSECONDS.toNanos(MIN_PAUSE_MICROS);
        selecting = Thread.currentThread();
        try {
            while (true) {
                int ready = doEpollSelectUDT(0);
                if (ready > 0 || woken.getAndSet(false)) {
                    return ready;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return 0;
                }
                LockSupport.parkNanos(this, Math.min(pause, left));
                pause = Math.min(pause * 2, TimeUnit.MICROSECONDS.toNanos(MAX_PAUSE_MICROS));
            }
        } finally {
            selecting = null;
        }
    }

    @Override
    public Selector wakeup() {
        super.wakeup();
        woken.set(true);
        Thread thread = selecting;
        if (thread != null) {
            LockSupport.unpark(thread);
        }
        return this;
    }
}
