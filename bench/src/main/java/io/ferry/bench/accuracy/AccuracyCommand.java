package io.ferry.bench.accuracy;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.netns.Host;
import io.ferry.bench.netns.RootAccess;
import io.ferry.bench.netns.Topology;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Checks the emulator's accuracy from the command line: the no-root UDP relay always, and the TUN
 * emulator between two namespaces when running as root (skipped with the reason otherwise).
 *
 * <pre>java -cp bench/target/benchmarks.jar io.ferry.bench.accuracy.AccuracyCommand --rate 20 --delay 50 --loss 10</pre>
 */
@Command(name = "ferry-accuracy", mixinStandardHelpOptions = true,
        description = "Measure RTT, rate and loss through the link emulator and compare them with what was asked. Exit 1 if a check fails.")
public final class AccuracyCommand implements Callable<Integer> {

    @Option(names = "--rate", description = "Link rate in Mbit/s (default: ${DEFAULT-VALUE}).")
    double rateMbit = 20;

    @Option(names = "--delay", description = "One-way delay in ms (default: ${DEFAULT-VALUE}).")
    long delayMillis = 50;

    @Option(names = "--loss", description = "Random loss in percent, each way (default: ${DEFAULT-VALUE}).")
    double lossPercent = 10;

    @Option(names = "--queue", description = "Drop-tail queue in bytes (default: ${DEFAULT-VALUE}).")
    long queueBytes = 100_000;

    @Option(names = "--seconds", description = "Seconds per rate and loss check (default: ${DEFAULT-VALUE}).")
    double seconds = 2;

    @Override
    public Integer call() throws Exception {
        LinkModel model = new LinkModel(lossPercent / 100, (long) (rateMbit * 1e6), queueBytes, Duration.ofMillis(delayMillis), 42);
        boolean ok = true;
        try (Route relay = Route.relay(model)) {
            List<Measurement> r = new AccuracyCheck(Host.loopback(), Host.loopback(), relay, model, seconds).run();
            System.out.println("UdpRelay (no root), " + model.describe() + ":\n" + AccuracyCheck.markdown(r));
            ok &= r.stream().allMatch(Measurement::passed);
        }
        if (RootAccess.available()) {
            try (Topology t = Topology.emulated(model, model.withSeed(43)); Route kernel = Route.kernel()) {
                List<Measurement> r = new AccuracyCheck(t.clientHost(), t.serverHost(), kernel, model, seconds).run();
                System.out.println("TUN emulator between namespaces, " + model.describe() + ":\n" + AccuracyCheck.markdown(r));
                ok &= r.stream().allMatch(Measurement::passed);
            }
        } else {
            System.out.println("TUN emulator check SKIPPED: " + RootAccess.missing().orElse(""));
        }
        return ok ? 0 : 1;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new AccuracyCommand()).execute(args));
    }
}
