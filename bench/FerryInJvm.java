import io.ferry.cli.FerryCli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Runs {@code ferry} commands one after another in one JVM, for a bench to time the same command warm (what an
 * application that keeps a JVM running sees) beside the fresh JVM of each {@code ./ferry} command.
 *
 * <p>Run with the source launcher: {@code java -cp ferry.jar bench/FerryInJvm.java OUT_FILE}. Each line on stdin is
 * a command's arguments, separated by single spaces; its output goes to OUT_FILE (replaced per command), its
 * errors to stderr, and one line to stdout: {@code rc WALL_SECONDS CPU_SECONDS} (the JVM's CPU over the command).
 */
public final class FerryInJvm {

    public static void main(String[] args) throws Exception {
        FerryCli.prepareJvm(); // what FerryCli.main sets before any Netty class loads
        Path outFile = Path.of(args[0]);
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter err = new PrintWriter(System.err, true);
        for (String line; (line = in.readLine()) != null && !line.isBlank(); ) {
            long cpu0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            int rc;
            try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(outFile, StandardCharsets.UTF_8))) {
                rc = FerryCli.commandLine().setOut(out).setErr(err).execute(line.split(" "));
            }
            long wall = System.nanoTime() - t0;
            System.out.printf(Locale.ROOT, "%d %.3f %.2f%n", rc, wall / 1e9, (os.getProcessCpuTime() - cpu0) / 1e9);
            System.out.flush();
        }
    }
}
