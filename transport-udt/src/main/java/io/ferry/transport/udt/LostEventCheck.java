package io.ferry.transport.udt;

import io.netty.channel.EventLoop;

import java.util.concurrent.TimeUnit;

/**
 * A second look, shortly after a receive that emptied the socket or a send that filled it, for the
 * readiness event UDT4 can lose there. {@code CUDT::recv} clears the socket's read event once it finds its
 * buffer empty, and the receiver thread sets it when it acknowledges new data, with no lock in common: data
 * acknowledged between the check and the clear waits in the buffer with no event (and {@code CUDT::send}
 * likewise clears the write event as an acknowledgement frees space). The next arrival or acknowledgement
 * raises it again, so the loss stalls a connection only when nothing more comes: the end of a message its
 * peer now waits on to answer. Netty's socket test suite hung so in about one run in four, echo and gathering
 * writes over {@code udt}. One look per {@value #DELAY_MILLIS} ms at most, and only after such a call; an idle
 * connection costs nothing.
 */
final class LostEventCheck {

    static final long DELAY_MILLIS = 10;

    private final EventLoop loop;
    private final Runnable recover;
    private boolean scheduled;

    /** {@code recover} asks UDT for the socket's true state and does what a lost event would have started. */
    LostEventCheck(EventLoop loop, Runnable recover) {
        this.loop = loop;
        this.recover = recover;
    }

    /**
     * A receive emptied the socket or a send filled it (the event loop): look again in {@value #DELAY_MILLIS}
     * ms. A look already scheduled covers this call too, since it runs after it on the same thread.
     */
    void arm() {
        if (scheduled) {
            return;
        }
        scheduled = true;
        loop.schedule(this::look, DELAY_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void look() {
        scheduled = false;
        recover.run();
    }
}
