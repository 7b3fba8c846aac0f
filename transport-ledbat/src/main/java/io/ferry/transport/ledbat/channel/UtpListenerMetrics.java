package io.ferry.transport.ledbat.channel;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.ArrayList;
import java.util.List;

/**
 * Publishes what a uTP listener turned away as Micrometer meters, so that an attack (or a broken peer)
 * shows on a dashboard: {@code ferry.utp.listener.packets.malformed}, {@code .packets.unknown},
 * {@code .syns.dropped}, {@code .syns.refused}, {@code .halfopen.expired}, {@code .resets.suppressed},
 * {@code .connection.failures}, {@code .socket.errors} (function counters) and
 * {@code ferry.utp.listener.connections} with {@code state=half-open|established} (gauges). Tagged with
 * {@code local} (the listener's address) plus your own tags. The meters are removed when the listener closes.
 */
public final class UtpListenerMetrics {

    private UtpListenerMetrics() {
    }

    /**
     * Binds the listener's counters to {@code registry}.
     *
     * @return the meters registered
     */
    public static List<Meter> bind(UtpServerChannel listener, MeterRegistry registry, Tags tags) {
        Tags all = tags.and("local", String.valueOf(listener.localAddress()));
        List<Meter> meters = new ArrayList<>();
        meters.add(counter(registry, "ferry.utp.listener.packets.malformed", "datagrams dropped as malformed",
                listener, UtpServerChannel::malformedPacketsDropped, all));
        meters.add(counter(registry, "ferry.utp.listener.packets.unknown", "valid packets for connections the listener does not have",
                listener, UtpServerChannel::packetsForUnknownConnections, all));
        meters.add(counter(registry, "ferry.utp.listener.syns.dropped", "SYNs dropped unanswered: too many half-open connections",
                listener, UtpServerChannel::synsDropped, all));
        meters.add(counter(registry, "ferry.utp.listener.syns.refused", "SYNs refused: too many connections in all or from one address",
                listener, UtpServerChannel::synsRefused, all));
        meters.add(counter(registry, "ferry.utp.listener.halfopen.expired", "half-open connections whose initiator never proved its address",
                listener, UtpServerChannel::halfOpenExpired, all));
        meters.add(counter(registry, "ferry.utp.listener.halfopen.evicted", "half-open connections ended to admit a newer SYN at the half-open limit",
                listener, UtpServerChannel::halfOpenEvicted, all));
        meters.add(counter(registry, "ferry.utp.listener.halfopen.revived", "evicted half-open connections brought back by the initiator's confirmation",
                listener, UtpServerChannel::halfOpenRevived, all));
        meters.add(counter(registry, "ferry.utp.listener.resets.suppressed", "RESETs not sent because of the rate limit",
                listener, UtpServerChannel::resetsSuppressed, all));
        meters.add(counter(registry, "ferry.utp.listener.connection.failures", "connections reset because their handling threw",
                listener, UtpServerChannel::connectionFailures, all));
        meters.add(counter(registry, "ferry.utp.listener.socket.errors", "errors the listener's sockets reported",
                listener, UtpServerChannel::socketErrors, all));
        meters.add(Gauge.builder("ferry.utp.listener.connections", listener, UtpServerChannel::halfOpenConnections)
                .description("connections of the listener").tags(all.and("state", "half-open")).register(registry));
        meters.add(Gauge.builder("ferry.utp.listener.connections", listener, UtpServerChannel::establishedConnections)
                .description("connections of the listener").tags(all.and("state", "established")).register(registry));
        listener.closeFuture().addListener(f -> meters.forEach(registry::remove));
        return meters;
    }

    private static Meter counter(MeterRegistry registry, String name, String description, UtpServerChannel listener,
                                 java.util.function.ToLongFunction<UtpServerChannel> value, Tags tags) {
        return FunctionCounter.builder(name, listener, l -> value.applyAsLong(l)).description(description).tags(tags)
                .register(registry);
    }
}
