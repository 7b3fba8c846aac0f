package io.ferry.cli.perf;

import io.netty.util.concurrent.ScheduledFuture;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Round trips over the control connection, every {@link #INTERVAL_MILLIS}: the path's RTT before any
 * test and under each test's load (the queue a flow keeps shows up in them, as in flent's RRUL).
 */
final class Pinger implements AutoCloseable {

    static final long INTERVAL_MILLIS = 100;

    private record Sample(long sentNanos, double rttMillis) {
    }

    private final ControlConnection control;
    private final Map<Long, Long> outstanding = new ConcurrentHashMap<>();
    private final List<Sample> samples = new ArrayList<>();
    private ScheduledFuture<?> task;
    private long next;

    Pinger(ControlConnection control) {
        this.control = control;
        control.onPong(m -> {
            long received = System.nanoTime();
            Long sent = outstanding.remove(m.number("seq", -1));
            if (sent != null) {
                synchronized (samples) {
                    samples.add(new Sample(sent, (received - sent) / 1e6));
                }
            }
        });
    }

    void start() {
        task = control.channel().eventLoop().scheduleAtFixedRate(() -> {
            long seq = next++;
            outstanding.put(seq, System.nanoTime());
            control.send(ControlMessage.of("PING", "seq", seq));
            if (outstanding.size() > 1000) {
                outstanding.keySet().removeIf(s -> s < seq - 1000);
            }
        }, 0, INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** The median round trip of pings sent within [{@code fromNanos}, {@code toNanos}), in ms, or NaN for none. */
    double median(long fromNanos, long toNanos) {
        double[] in;
        synchronized (samples) {
            in = samples.stream().filter(s -> s.sentNanos >= fromNanos && s.sentNanos < toNanos).mapToDouble(Sample::rttMillis).toArray();
        }
        if (in.length == 0) {
            return Double.NaN;
        }
        Arrays.sort(in);
        return in.length % 2 == 1 ? in[in.length / 2] : (in[in.length / 2 - 1] + in[in.length / 2]) / 2;
    }

    @Override
    public void close() {
        if (task != null) {
            task.cancel(false);
        }
    }
}
