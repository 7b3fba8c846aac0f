package io.ferry.bench.scenario;

import io.ferry.bench.netns.RootAccess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fairness study end to end at its quick size: a CUBIC flow joins an established Ferry uTP flow on
 * the emulated 100 Mbit/s, 20 ms link. Asserts only a loose property that holds on a busy machine: once
 * TCP is there, the scavenger carries less than TCP does.
 */
class FairnessStudyTest {

    @Test
    void aLateTcpFlowGetsMoreThanTheEstablishedScavenger(@TempDir Path out) throws Exception {
        if (!RootAccess.available()) {
            System.out.println("FairnessStudyTest skipped: " + RootAccess.missing().orElse(""));
        }
        Assumptions.assumeTrue(RootAccess.available(), "needs root, network namespaces and /dev/net/tun");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        int exit = ScenarioRunner.run(new PrintStream(log, true, StandardCharsets.UTF_8), "--quick", "--only", "fairness",
                "--scavengers", "ferry", "--fairness-scenarios", "tcp-joins", "--out", out.toString());
        String printed = log.toString(StandardCharsets.UTF_8);
        System.out.println(printed);
        assertEquals(0, exit, printed);
        String json = Files.readString(out.resolve("results.json"));
        Matcher share = Pattern.compile("\"scavenger_share\"\\s*:\\s*([0-9.Ee-]+)").matcher(json);
        assertTrue(share.find(), json);
        assertTrue(Double.parseDouble(share.group(1)) < 0.5, "the scavenger kept " + share.group(1) + " of the link");
        assertTrue(json.contains("\"time_to_yield_s\""), json);
        assertTrue(Files.size(out.resolve("fairness-20ms-1-cubic-joins-ferry.png")) > 1_000);
    }

    @Test
    void anUnknownScavengerControllerOrScenarioIsABadCommandLine(@TempDir Path out) {
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertEquals(2, ScenarioRunner.run(quiet, "--only", "fairness", "--scavengers", "quic", "--out", out.toString()));
        assertEquals(2, ScenarioRunner.run(quiet, "--only", "fairness", "--scavengers", "ferry:no-such-cc", "--out", out.toString()));
        assertEquals(2, ScenarioRunner.run(quiet, "--only", "fairness", "--fairness-scenarios", "sideways", "--out", out.toString()));
    }
}
