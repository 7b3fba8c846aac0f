package io.ferry.bench.scenario;

import io.ferry.bench.emulator.LinkModel;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What the file matrix runs: which link conditions, transports, file sizes and packet sizes. Empty
 * lists take the profile's defaults.
 *
 * @param conditions  condition ids (see {@link Condition})
 * @param transports  transport names; empty: every planned and installed one
 * @param fileSizes   file sizes in bytes
 * @param packetSizes {@code PACKET_SIZE} values in bytes
 */
record MatrixSelection(List<String> conditions, List<String> transports, List<Long> fileSizes, List<Integer> packetSizes) {

    static final MatrixSelection DEFAULTS = new MatrixSelection(List.of(), List.of(), List.of(), List.of());

    /**
     * One link condition of the matrix.
     *
     * @param id          what {@code --matrix-conditions} names it by
     * @param name        its name in the report
     * @param description the link, in words
     * @param link        the emulated link (the same model both ways), null for loopback
     * @param hard        a path where each transfer takes seconds: it runs with 1500-byte packets only
     *                    unless packet sizes are chosen, and each transfer gets a longer bound
     */
    record Condition(String id, String name, String description, LinkModel link, boolean hard) {
    }

    static final List<Condition> ALL = List.of(
            new Condition("local", "local", "loopback, one host", null, false),
            new Condition("delay", "delay 50 ms", "TUN link, 25 ms each way (RTT 50 ms), unlimited rate",
                    LinkModel.delay(Duration.ofMillis(25)), false),
            new Condition("loss", "loss 25%", "TUN link, 25% random loss each way, no delay, unlimited rate",
                    new LinkModel(0.25, 0, 0, Duration.ZERO, 25), false),
            new Condition("loss-delay", "loss 25% + delay 50 ms",
                    "TUN link, 25% random loss and 25 ms delay each way (RTT 50 ms), unlimited rate",
                    new LinkModel(0.25, 0, 0, Duration.ofMillis(25), 2550), true),
            new Condition("lossy-long", "loss 1% + delay 100 ms",
                    "TUN link, 1% random loss and 50 ms delay each way (RTT 100 ms), unlimited rate",
                    new LinkModel(0.01, 0, 0, Duration.ofMillis(50), 1100), true));

    MatrixSelection {
        conditions = List.copyOf(conditions);
        transports = List.copyOf(transports);
        fileSizes = List.copyOf(fileSizes);
        packetSizes = List.copyOf(packetSizes);
        for (String id : conditions) {
            byId(id);
        }
        for (long size : fileSizes) {
            if (size < 1) {
                throw new IllegalArgumentException("file size must be at least 1 byte, got " + size);
            }
        }
    }

    static Condition byId(String id) {
        return ALL.stream().filter(c -> c.id().equals(id.toLowerCase(Locale.ROOT))).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown matrix condition '" + id + "'; choose from "
                        + ALL.stream().map(Condition::id).collect(Collectors.joining(", "))));
    }

    List<Condition> conditionsOr(StudyContext ctx) {
        if (!conditions.isEmpty()) {
            return conditions.stream().map(MatrixSelection::byId).toList();
        }
        List<String> ids = ctx.pick(List.of("local", "delay"), Arrays.asList("local", "delay", "loss", "loss-delay", "lossy-long"),
                Arrays.asList("local", "delay", "loss", "loss-delay", "lossy-long"));
        return ids.stream().map(MatrixSelection::byId).toList();
    }

    List<String> transportsOr(StudyContext ctx) {
        return transports.isEmpty() ? ctx.transports().all() : transports;
    }

    List<Long> fileSizesOr(StudyContext ctx) {
        return fileSizes.isEmpty() ? ctx.pick(List.of(1L, 28_000L), List.of(1L, 28_000L, 2_800_000L, 14_000_000L),
                List.of(1L, 28_000L, 2_800_000L, 14_000_000L, 110_000_000L)) : fileSizes;
    }

    List<Integer> packetSizesOr(StudyContext ctx, Condition condition) {
        if (!packetSizes.isEmpty()) {
            return packetSizes;
        }
        if (condition.hard()) {
            return List.of(1_500);
        }
        return ctx.pick(List.of(1_500), List.of(64, 1_500, 10_000, 64_000), List.of(64, 1_500, 10_000, 64_000));
    }

    /** How long one transfer may take before it counts as a timeout. */
    static Duration timeout(StudyContext ctx, Condition condition) {
        if (condition.hard()) {
            return ctx.pick(Duration.ofSeconds(30), Duration.ofSeconds(120), Duration.ofSeconds(600));
        }
        return ctx.pick(Duration.ofSeconds(15), Duration.ofSeconds(20), Duration.ofSeconds(300));
    }
}
