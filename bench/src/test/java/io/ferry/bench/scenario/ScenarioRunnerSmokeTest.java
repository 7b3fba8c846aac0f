package io.ferry.bench.scenario;

import io.ferry.bench.netns.RootAccess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The runner's quick profile produces the JSON and Markdown reports and PNG charts, and lists uninstalled transports as such. */
class ScenarioRunnerSmokeTest {

    @Test
    void quickRunWritesJsonMarkdownAndCharts(@TempDir Path out) throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        int exit = ScenarioRunner.run(new PrintStream(log, true, StandardCharsets.UTF_8), "--quick", "--only", "matrix,udp",
                "--out", out.toString());
        String printed = log.toString(StandardCharsets.UTF_8);
        System.out.println(printed);
        assertEquals(0, exit, printed);
        String md = Files.readString(out.resolve("report.md"));
        String json = Files.readString(out.resolve("results.json"));
        assertTrue(md.contains("## 2. File size") && md.contains("## 4. UDP datagram loss"), md);
        assertTrue(json.contains("\"machine\"") && json.contains("\"cores\""), json);
        assertTrue(Files.size(out.resolve("matrix.png")) > 1_000);
        assertTrue(Files.size(out.resolve("udp-size.png")) > 1_000);
        TransportCatalog catalog = TransportCatalog.discover();
        for (String t : catalog.all()) {
            assertTrue(md.contains("| " + t + " |"), "a row for " + t);
            if (!catalog.installed(t)) {
                assertTrue(md.contains("transport not installed"), "uninstalled " + t + " is listed as such");
            }
        }
        if (!RootAccess.available()) {
            System.out.println("ScenarioRunnerSmokeTest ran without root: " + RootAccess.missing().orElse(""));
        }
    }

    @Test
    void anUnknownStudyIsABadCommandLine(@TempDir Path out) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream stream = new PrintStream(log, true, StandardCharsets.UTF_8);
        assertEquals(2, ScenarioRunner.run(stream, "--only", "nonsense", "--out", out.toString()));
    }

    @Test
    void anUnknownMatrixConditionIsABadCommandLineThatNamesTheChoices(@TempDir Path out) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream stream = new PrintStream(log, true, StandardCharsets.UTF_8);
        int exit = new picocli.CommandLine(new ScenarioRunner(stream)).setErr(new java.io.PrintWriter(stream, true))
                .execute("--only", "matrix", "--matrix-conditions", "local,marsh", "--out", out.toString());
        assertEquals(2, exit);
        String text = log.toString(StandardCharsets.UTF_8);
        org.junit.jupiter.api.Assertions.assertTrue(text.contains("unknown matrix condition 'marsh'") && text.contains("loss-delay"), text);
    }

    @Test
    void anUnknownValidationPairOrConditionIsABadCommandLine(@TempDir Path out) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream stream = new PrintStream(log, true, StandardCharsets.UTF_8);
        assertEquals(2, ScenarioRunner.run(stream, "--only", "ccvalidation", "--cc-pairs", "vegas", "--out", out.toString()));
        assertEquals(2, ScenarioRunner.run(stream, "--only", "ccvalidation", "--cc-conditions", "muddy", "--out", out.toString()));
        assertEquals(2, ScenarioRunner.run(stream, "--only", "parallel", "--algorithms", "compound", "--out", out.toString()));
    }
}
