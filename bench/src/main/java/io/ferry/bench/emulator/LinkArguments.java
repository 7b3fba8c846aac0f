package io.ferry.bench.emulator;

import java.time.Duration;

/**
 * The link a command line describes: {@code --mbit N --rtt-ms N [--loss FRACTION] [--queue-ms N]}, the same
 * both ways (a queue of one RTT unless {@code --queue-ms} says otherwise). Commands read their own
 * arguments and pass the link's here.
 */
public final class LinkArguments {

    private long mbit;
    private long rttMs;
    private double loss;
    private long queueMs = -1;

    /** Starts from these defaults. */
    public LinkArguments(long mbit, long rttMs, double loss, long queueMs) {
        this.mbit = mbit;
        this.rttMs = rttMs;
        this.loss = loss;
        this.queueMs = queueMs;
    }

    /**
     * Takes {@code args[i]} (and its value) if it is a link argument.
     *
     * @return the index of the last argument taken, or -1 if {@code args[i]} is not one
     */
    public int take(String[] args, int i) {
        switch (args[i]) {
            case "--mbit" -> mbit = Long.parseLong(args[++i]);
            case "--rtt-ms" -> rttMs = Long.parseLong(args[++i]);
            case "--loss" -> loss = Double.parseDouble(args[++i]);
            case "--queue-ms" -> queueMs = Long.parseLong(args[++i]);
            default -> {
                return -1;
            }
        }
        return i;
    }

    public long mbit() {
        return mbit;
    }

    public long rttMs() {
        return rttMs;
    }

    public double loss() {
        return loss;
    }

    /** The link: delay of half the RTT each way, the rate, a drop-tail queue, random loss. */
    public LinkModel model() {
        long bits = mbit * 1_000_000;
        long queue = LinkModel.queueFor(bits, Duration.ofMillis(queueMs < 0 ? rttMs : queueMs));
        return LinkModel.delay(Duration.ofMillis(rttMs / 2)).withRate(bits, queue).withLoss(loss);
    }
}
