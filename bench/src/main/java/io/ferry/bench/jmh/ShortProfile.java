package io.ferry.bench.jmh;

import io.ferry.transport.Transports;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The short JMH profile (about two minutes on 2 cores): every benchmark of this package on every
 * installed transport, one fork, one 2 s warm-up and two 2 s measurements; results in
 * {@code target/jmh-short.json} (or the directory given as the only argument).
 *
 * <pre>java -cp bench/target/benchmarks.jar io.ferry.bench.jmh.ShortProfile</pre>
 */
public final class ShortProfile {

    private ShortProfile() {
    }

    public static void main(String[] args) throws Exception {
        String[] installed;
        try (Transports t = Transports.create()) {
            installed = t.transportNames().toArray(String[]::new);
        }
        Path out = Path.of(args.length > 0 ? args[0] : "target");
        Files.createDirectories(out);
        Options options = new OptionsBuilder()
                .include(ShortProfile.class.getPackageName() + ".*Benchmark")
                .exclude(ScavengerFairnessBenchmark.class.getSimpleName())
                .param("transport", installed)
                .forks(1)
                .warmupIterations(1).warmupTime(TimeValue.seconds(2))
                .measurementIterations(2).measurementTime(TimeValue.seconds(2))
                .resultFormat(ResultFormatType.JSON)
                .result(out.resolve("jmh-short.json").toString())
                .build();
        new Runner(options).run();
    }
}
