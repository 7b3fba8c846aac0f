package io.ferry.transport.ledbat.channel;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Publishes what a uTP listener turned away as Micrometer meters, so that an attack (or a broken peer)
 * shows on a dashboard: {@code ferry.utp.listener.packets.malformed}, {@code .packets.unknown},
 * {@code .syns.dropped}, {@code .syns.refused}, {@code .halfopen.expired}, {@code .halfopen.evicted},
 * {@code .halfopen.revived}, {@code .resets.suppressed},
 * {@code .connection.failures}, {@code .socket.errors} (function counters) and
 * {@code ferry.utp.listener.connections} with {@code state=half-open|established} (gauges). Tagged with
 * {@code local} (the listener's address) plus your own tags. The meters are removed when the listener closes.
 */
public final class UtpListenerMetrics {

    /** A function counter: its name, what it counts, and the listener's figure behind it. */
    private record Counter(String name, String description, ToLongFunction<UtpServerChannel> value) {
    }

    private static final List<Counter> COUNTERS = List.of(
            new Counter("ferry.utp.listener.packets.malformed", "datagrams dropped as malformed",
                    UtpServerChannel::malformedPacketsDropped),
            new Counter("ferry.utp.listener.packets.unknown", "valid packets for connections the listener does not have",
                    UtpServerChannel::packetsForUnknownConnections),
            new Counter("ferry.utp.listener.syns.dropped", "SYNs dropped unanswered: too many half-open connections",
                    UtpServerChannel::synsDropped),
            new Counter("ferry.utp.listener.syns.refused", "SYNs refused: too many connections in all or from one address",
                    UtpServerChannel::synsRefused),
            new Counter("ferry.utp.listener.halfopen.expired", "half-open connections whose initiator never proved its address",
                    UtpServerChannel::halfOpenExpired),
            new Counter("ferry.utp.listener.syns.cached", "SYNs answered from the SYN cache, without a connection, at the half-open limit",
                    UtpServerChannel::synsAnsweredFromCache),
            new Counter("ferry.utp.listener.halfopen.evicted", "half-open connections ended to make room for a confirmed handshake at the half-open limit",
                    UtpServerChannel::halfOpenEvicted),
            new Counter("ferry.utp.listener.halfopen.revived", "connections made from the SYN cache when the initiator confirmed the answer",
                    UtpServerChannel::halfOpenRevived),
            new Counter("ferry.utp.listener.resets.suppressed", "RESETs not sent because of the rate limit",
                    UtpServerChannel::resetsSuppressed),
            new Counter("ferry.utp.listener.connection.failures", "connections reset because their handling threw",
                    UtpServerChannel::connectionFailures),
            new Counter("ferry.utp.listener.socket.errors", "errors the listener's sockets reported",
                    UtpServerChannel::socketErrors));

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
        for (Counter c : COUNTERS) {
            ToLongFunction<UtpServerChannel> value = c.value();
            meters.add(FunctionCounter.builder(c.name(), listener, l -> value.applyAsLong(l)).description(c.description())
                    .tags(all).register(registry));
        }
        meters.add(Gauge.builder("ferry.utp.listener.connections", listener, UtpServerChannel::halfOpenConnections)
                .description("connections of the listener").tags(all.and("state", "half-open")).register(registry));
        meters.add(Gauge.builder("ferry.utp.listener.connections", listener, UtpServerChannel::establishedConnections)
                .description("connections of the listener").tags(all.and("state", "established")).register(registry));
        listener.closeFuture().addListener(f -> meters.forEach(registry::remove));
        return meters;
    }
}
