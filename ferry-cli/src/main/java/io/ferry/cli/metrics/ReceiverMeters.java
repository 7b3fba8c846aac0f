package io.ferry.cli.metrics;

import io.ferry.cli.transfer.FileOutcome;
import io.ferry.cli.transfer.ReceiverEvents;
import io.ferry.transport.metrics.ChannelMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.netty.channel.Channel;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a {@code ferry receive} reports to an operator: per connection, the transport's own meters
 * ({@code ferry.transport.*}, see {@link ChannelMetrics}, tagged {@code role=receiver}) while it is
 * open; for the receiver, the files it holds verified by how they came ({@code ferry.receiver.files},
 * tag {@code status} = {@code stored} or {@code already_present}), the content bytes that crossed the
 * network for them ({@code ferry.receiver.bytes}), the failures reported (refused senders and files,
 * broken transfers: {@code ferry.receiver.failures}) and the connections open now
 * ({@code ferry.receiver.connections}).
 */
public final class ReceiverMeters {
    private final MeterRegistry registry;
    private final Map<FileOutcome.Status, Counter> files = new EnumMap<>(FileOutcome.Status.class);
    private final Counter bytes;
    private final Counter failures;
    private final AtomicInteger connections = new AtomicInteger();

    public ReceiverMeters(MeterRegistry registry) {
        this.registry = registry;
        for (FileOutcome.Status status : new FileOutcome.Status[] {FileOutcome.Status.STORED, FileOutcome.Status.ALREADY_PRESENT}) {
            files.put(status, Counter.builder("ferry.receiver.files").description("files held verified, by how they came")
                    .tag("status", status.name().toLowerCase(Locale.ROOT)).register(registry));
        }
        bytes = Counter.builder("ferry.receiver.bytes").baseUnit("bytes")
                .description("file content bytes received over the network").register(registry);
        failures = Counter.builder("ferry.receiver.failures")
                .description("failures reported: refused senders and files, broken transfers").register(registry);
        Gauge.builder("ferry.receiver.connections", connections, AtomicInteger::get)
                .description("connections from senders open now").register(registry);
    }

    /** Publishes an accepted connection's transport meters until it closes, and counts it while open. */
    public void accepted(Channel channel) {
        ChannelMetrics.bind(channel, registry, Tags.of("role", "receiver"));
        connections.incrementAndGet();
        channel.closeFuture().addListener(f -> connections.decrementAndGet());
    }

    /** Wraps a receiver's events so that each outcome is counted before {@code delegate} sees it. */
    public ReceiverEvents counting(ReceiverEvents delegate) {
        return new ReceiverEvents() {
            @Override
            public void fileStarted(String peer, String name, long size, long resumedFrom) {
                delegate.fileStarted(peer, name, size, resumedFrom);
            }

            @Override
            public void stored(FileOutcome outcome) {
                Counter counter = files.get(outcome.status());
                if (counter != null) {
                    counter.increment();
                }
                bytes.increment(outcome.transferred());
                delegate.stored(outcome);
            }

            @Override
            public void failed(String message) {
                failures.increment();
                delegate.failed(message);
            }

            @Override
            public void sessionEnded(String peer, boolean ok) {
                delegate.sessionEnded(peer, ok);
            }
        };
    }
}
