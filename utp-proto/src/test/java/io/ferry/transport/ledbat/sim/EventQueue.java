package io.ferry.transport.ledbat.sim;

import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;

/** A virtual clock and the ordered events of a discrete-event simulation. */
public final class EventQueue {
    private record Event(long time, long order, Runnable action) {
    }

    private final PriorityQueue<Event> queue = new PriorityQueue<>((x, y) -> x.time != y.time
            ? Long.compare(x.time, y.time) : Long.compare(x.order, y.order));
    private long now;
    private long order;

    public EventQueue(long startNanos) {
        this.now = startNanos;
    }

    public long now() {
        return now;
    }

    public void schedule(long atNanos, Runnable action) {
        queue.add(new Event(Math.max(atNanos, now), order++, action));
    }

    /**
     * Runs events until {@code done} holds, no event is left, or virtual time passes {@code untilNanos}.
     *
     * @return whether {@code done} holds at the end
     */
    public boolean runUntil(BooleanSupplier done, long untilNanos) {
        while (!done.getAsBoolean()) {
            Event e = queue.peek();
            if (e == null || e.time > untilNanos) {
                return done.getAsBoolean();
            }
            queue.poll();
            now = e.time;
            e.action.run();
        }
        return true;
    }

    /** Runs every event up to {@code untilNanos}. */
    public void runFor(long durationNanos) {
        long until = now + durationNanos;
        runUntil(() -> false, until);
        now = Math.max(now, until);
    }
}
