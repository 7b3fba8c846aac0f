package io.ferry.bench.scenario;

import io.ferry.bench.emulator.LinkArguments;
import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.transfer.StreamingFlow;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Does a flow deliver steadily? One bulk flow over an emulated link (loss each way, a drop-tail queue,
 * a delay), its receiver's byte count read every {@link #SAMPLE_MILLIS}; reports the longest time the
 * receiver got nothing, how many such gaps passed a second, and the rate per second. A transport whose
 * recovery of a lost retransmission waits for its flow window to fill shows gaps of many seconds here
 * (UDT4 before Ferry bounded its window: 15-20 s at 1 % loss behind a 150 ms queue). Needs root.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.ferry.bench.scenario.DeliveryGaps --transport udt --mbit 100 --rtt-ms 20 --loss 0.01 --queue-ms 150 --seconds 60
 * </pre>
 */
public final class DeliveryGaps {

    static final long SAMPLE_MILLIS = 10;

    /** What one run saw. */
    public record Result(double longestGapSeconds, int gapsOverOneSecond, double meanMbitPerSecond, List<Double> mbitPerSecond,
                         String senderStatistics) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "longest gap %.2f s, %d gaps over 1 s, mean %.1f Mbit/s%n  per second: %s%n  sender: %s",
                    longestGapSeconds, gapsOverOneSecond, meanMbitPerSecond, mbitPerSecond.stream()
                            .map(r -> String.format(Locale.ROOT, "%.1f", r)).toList(), senderStatistics);
        }
    }

    /** Runs one flow of {@code transport} (scheme, or SCHEME:CC) over {@code link} both ways for {@code duration}. */
    public static Result run(String transport, LinkModel link, Duration duration) throws Exception {
        String scheme = transport.contains(":") ? transport.substring(0, transport.indexOf(':')) : transport;
        ChannelOptions options = transport.contains(":")
                ? ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, transport.substring(scheme.length() + 1)).build()
                : ChannelOptions.empty();
        try (TestBed bed = TestBed.emulated(link)) {
            StreamingFlow flow = StreamingFlow.start(transport, scheme, options, bed.client(), bed.server());
            String stats;
            List<Double> perSecond = new ArrayList<>();
            long longestGap = 0;
            int longGaps = 0;
            try {
                long start = System.nanoTime();
                long end = start + duration.toNanos();
                long lastChange = -1;
                long lastBytes = 0;
                long secondStart = start;
                long secondBytes = 0;
                while (System.nanoTime() < end) {
                    Thread.sleep(SAMPLE_MILLIS);
                    long now = System.nanoTime();
                    long bytes = flow.receivedBytes();
                    if (bytes != lastBytes) {
                        if (lastChange >= 0) {
                            long gap = now - lastChange;
                            longestGap = Math.max(longestGap, gap);
                            if (gap > 1_000_000_000L) {
                                longGaps++;
                            }
                        }
                        lastChange = now;
                        lastBytes = bytes;
                    }
                    if (now - secondStart >= 1_000_000_000L) {
                        perSecond.add((bytes - secondBytes) * 8e3 / (now - secondStart));
                        if (Boolean.getBoolean("ferry.bench.verbose")) {
                            System.out.printf(Locale.ROOT, "  %5.1f s %6.1f Mbit/s  %s%n", (now - start) / 1e9, perSecond.get(perSecond.size() - 1),
                                    flow.senderStatistics().map(Object::toString).orElse("closed"));
                        }
                        secondStart = now;
                        secondBytes = bytes;
                    }
                }
                if (lastChange >= 0 && System.nanoTime() - lastChange > longestGap) {
                    longestGap = System.nanoTime() - lastChange; // a stall still going on at the end counts too
                }
                stats = flow.senderStatistics().map(Object::toString).orElse("closed");
                double mean = lastBytes * 8e3 / (System.nanoTime() - start);
                return new Result(longestGap / 1e9, longGaps, mean, perSecond, stats);
            } finally {
                flow.close();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String transport = "udt";
        long seconds = 60;
        LinkArguments link = new LinkArguments(100, 20, 0.01, 150);
        for (int i = 0; i < args.length; i++) {
            int taken = link.take(args, i);
            if (taken >= 0) {
                i = taken;
            } else if (args[i].equals("--transport")) {
                transport = args[++i];
            } else if (args[i].equals("--seconds")) {
                seconds = Long.parseLong(args[++i]);
            } else {
                throw new IllegalArgumentException("unknown argument " + args[i]
                        + " (--transport SCHEME[:CC] --mbit N --rtt-ms N --loss FRACTION --queue-ms N --seconds N)");
            }
        }
        LinkModel model = link.model();
        System.out.printf(Locale.ROOT, "%s over %s for %d s%n", transport, model.describe(), seconds);
        System.out.println(run(transport, model, Duration.ofSeconds(seconds)));
    }

    private DeliveryGaps() {
    }
}
