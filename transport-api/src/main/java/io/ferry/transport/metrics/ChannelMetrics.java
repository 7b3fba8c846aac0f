package io.ferry.transport.metrics;

import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.netty.channel.Channel;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.ToDoubleFunction;

/**
 * Publishes one Ferry connection's {@link TransportStatistics} as Micrometer meters. Every transport
 * produces the same meter names and tags, so dashboards work unchanged when the URI scheme changes:
 *
 * <table>
 * <caption>Meters</caption>
 * <tr><th>name</th><th>type</th><th>unit</th></tr>
 * <tr><td>{@code ferry.transport.bytes.sent}</td><td>function counter</td><td>bytes</td></tr>
 * <tr><td>{@code ferry.transport.bytes.received}</td><td>function counter</td><td>bytes</td></tr>
 * <tr><td>{@code ferry.transport.retransmissions}</td><td>function counter</td><td>packets</td></tr>
 * <tr><td>{@code ferry.transport.packets.lost}</td><td>function counter</td><td>packets</td></tr>
 * <tr><td>{@code ferry.transport.rtt}</td><td>gauge</td><td>seconds</td></tr>
 * <tr><td>{@code ferry.transport.rtt.variance}</td><td>gauge</td><td>seconds</td></tr>
 * <tr><td>{@code ferry.transport.congestion.window}</td><td>gauge</td><td>bytes</td></tr>
 * <tr><td>{@code ferry.transport.queuing.delay}</td><td>gauge</td><td>seconds</td></tr>
 * </table>
 *
 * <p>Tags: {@code transport} (e.g. {@code tcp}), {@code implementation} (e.g. {@code epoll}),
 * {@code local} and {@code remote} addresses, plus any given by the caller. A value the transport does
 * not know reads as {@code NaN}. The meters are removed from the registry when the channel closes.
 * Statistics are read at most once per {@link #DEFAULT_CACHE} per scrape burst.
 */
public final class ChannelMetrics implements MeterBinder {

    /** Meter name prefix shared by all transports. */
    public static final String PREFIX = "ferry.transport.";

    /** How long one statistics snapshot serves consecutive meter reads. */
    public static final Duration DEFAULT_CACHE = Duration.ofMillis(100);

    private final Channel channel;
    private final Tags tags;
    private final long cacheNanos;
    private volatile TransportStatistics cached;
    private volatile long cachedAt;

    /**
     * @param channel a channel created by a Ferry transport
     * @param extraTags tags added to every meter
     */
    public ChannelMetrics(Channel channel, Iterable<Tag> extraTags) {
        this.channel = Objects.requireNonNull(channel, "channel");
        TransportStatistics first = FerryChannels.statistics(channel);
        this.tags = Tags.of(
                        Tag.of("transport", first.transport()),
                        Tag.of("implementation", first.implementation()),
                        Tag.of("local", String.valueOf(channel.localAddress())),
                        Tag.of("remote", String.valueOf(channel.remoteAddress())))
                .and(extraTags);
        this.cacheNanos = DEFAULT_CACHE.toNanos();
        this.cached = first;
        this.cachedAt = System.nanoTime();
    }

    /** Binds a channel's meters to a registry; they are removed when the channel closes. */
    public static ChannelMetrics bind(Channel channel, MeterRegistry registry, Iterable<Tag> extraTags) {
        ChannelMetrics metrics = new ChannelMetrics(channel, extraTags);
        metrics.bindTo(registry);
        return metrics;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        List<Meter> meters = new ArrayList<>();
        meters.add(counter(registry, "bytes.sent", "bytes", "application bytes handed to the transport", s -> s.bytesSent()));
        meters.add(counter(registry, "bytes.received", "bytes", "application bytes delivered by the transport", s -> s.bytesReceived()));
        meters.add(counter(registry, "retransmissions", "packets", "packets or segments sent again", s -> value(s.retransmissions())));
        meters.add(counter(registry, "packets.lost", "packets", "packets or segments detected as lost", s -> value(s.packetsLost())));
        meters.add(gauge(registry, "rtt", "seconds", "smoothed round-trip time", s -> seconds(s.smoothedRtt())));
        meters.add(gauge(registry, "rtt.variance", "seconds", "round-trip time variation", s -> seconds(s.rttVariance())));
        meters.add(gauge(registry, "congestion.window", "bytes", "congestion window", s -> value(s.congestionWindowBytes())));
        meters.add(gauge(registry, "queuing.delay", "seconds", "measured queuing delay on the path", s -> seconds(s.queuingDelay())));
        meters.add(gauge(registry, "bandwidth.estimated", "bytes/s", "path bandwidth the transport estimates", s -> value(s.estimatedBandwidth())));
        meters.add(gauge(registry, "send.rate", "bytes/s", "current sending rate", s -> value(s.sendRate())));
        // Micrometer holds a meter's source object weakly: a caller that binds and forgets the result
        // (the usual way) would see its meters read 0 or NaN after the next GC. The channel keeps this
        // object reachable through its close listener until it closes and the meters go.
        channel.closeFuture().addListener(f -> unbind(registry, meters));
    }

    private void unbind(MeterRegistry registry, List<Meter> meters) {
        meters.forEach(registry::remove);
    }

    /** The tags every meter of this channel carries. */
    public Tags tags() {
        return tags;
    }

    private Meter counter(MeterRegistry registry, String name, String unit, String description,
                          ToDoubleFunction<TransportStatistics> read) {
        return FunctionCounter.builder(PREFIX + name, this, m -> read.applyAsDouble(m.snapshot()))
                .baseUnit(unit).description(description).tags(tags).register(registry);
    }

    private Meter gauge(MeterRegistry registry, String name, String unit, String description,
                        ToDoubleFunction<TransportStatistics> read) {
        return Gauge.builder(PREFIX + name, this, m -> read.applyAsDouble(m.snapshot()))
                .baseUnit(unit).description(description).tags(tags).register(registry);
    }

    private TransportStatistics snapshot() {
        long now = System.nanoTime();
        if (now - cachedAt >= cacheNanos && channel.isOpen()) {
            cached = FerryChannels.statistics(channel);
            cachedAt = now;
        }
        return cached;
    }

    private static double value(OptionalLong v) {
        return v.isPresent() ? v.getAsLong() : Double.NaN;
    }

    private static double seconds(Optional<Duration> v) {
        return v.map(d -> d.toNanos() / 1e9).orElse(Double.NaN);
    }
}
