package io.ferry.bench.emulator;

import io.ferry.bench.netns.Topology;

import java.time.Duration;
import java.util.Locale;

/**
 * Holds an emulated link up for commands run by hand or by a script: two network namespaces joined by
 * the TUN emulator, each way at the same rate, delay, queue and loss. Prints one line naming the
 * namespaces and addresses, then runs until {@code --seconds} pass or it is killed (SIGTERM), and tears
 * everything down. Needs root.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar io.ferry.bench.emulator.LinkCommand --mbit 200 --rtt-ms 150 [--loss 0.01] [--queue-ms 150] [--seconds 600]
 * #   link client=ferry-c-1234 10.77.0.1  server=ferry-s-1234 10.77.0.2  200 Mbit/s 150 ms RTT queue 3750000 B loss 0.0
 * ip netns exec ferry-s-1234 ./ferry receive --listen tcp://10.77.0.2:9000 --dir /tmp/in --once &
 * ip netns exec ferry-c-1234 ./ferry send big.iso tcp://10.77.0.2:9000
 * </pre>
 */
public final class LinkCommand {

    public static void main(String[] args) throws Exception {
        LinkArguments arguments = new LinkArguments(100, 100, 0, -1);
        long seconds = 3600;
        for (int i = 0; i < args.length; i++) {
            int taken = arguments.take(args, i);
            if (taken >= 0) {
                i = taken;
            } else if (args[i].equals("--seconds")) {
                seconds = Long.parseLong(args[++i]);
            } else {
                throw new IllegalArgumentException("unknown argument " + args[i]
                        + " (--mbit N --rtt-ms N [--loss FRACTION] [--queue-ms N] [--seconds N])");
            }
        }
        LinkModel link = arguments.model();
        long mbit = arguments.mbit();
        long rttMs = arguments.rttMs();
        double loss = arguments.loss();
        long queue = link.queueBytes();
        try (Topology t = Topology.emulated(link, link.withSeed(link.seed() + 1))) {
            System.out.printf(Locale.ROOT, "link client=%s %s  server=%s %s  %d Mbit/s %d ms RTT queue %d B loss %s%n",
                    t.client().name(), t.clientHost().address(), t.server().name(), t.serverHost().address(),
                    mbit, rttMs, queue, loss);
            System.out.flush();
            Thread.sleep(Duration.ofSeconds(seconds).toMillis()); // or until killed: the topology's shutdown hook tears it down
        }
    }

    private LinkCommand() {
    }
}
