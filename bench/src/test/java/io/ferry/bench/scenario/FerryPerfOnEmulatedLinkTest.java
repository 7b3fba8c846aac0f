package io.ferry.bench.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.netns.RootAccess;
import io.ferry.bench.transfer.PerfRuns;
import io.ferry.bench.transfer.ReferenceTransfers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code ferry perf} between two namespaces behind the emulated 200 Mbit/s, 40 ms link (150 ms queue, as the
 * fairness study's), run as a user runs it (two processes of the jar), with iperf3 on the same path for the
 * kernel's TCP. Root, iperf3 and the built jar only (skipped with the reason otherwise). The bounds are
 * loose (a broken measurement, not a figure: the figures are the perf study's, bench/results). The scavenger's
 * tests (40 s) are left to the study and to ferry-cli's {@code PerfSessionTest}: the suite's time is kept short.
 */
class FerryPerfOnEmulatedLinkTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @BeforeAll
    static void needsRootIperf3AndTheJar() {
        RootAccess.missing().ifPresent(reason -> System.out.println("SKIPPED FerryPerfOnEmulatedLinkTest: " + reason));
        assumeTrue(RootAccess.available());
        assumeTrue(ReferenceTransfers.iperf3Missing().isEmpty(), () -> ReferenceTransfers.iperf3Missing().get());
        assumeTrue(ReferenceTransfers.ferryMissing().isEmpty(), () -> ReferenceTransfers.ferryMissing().get());
    }

    @Test
    void tcpMatchesIperf3OnALongFatLink() throws Exception {
        long rate = 200_000_000;
        LinkModel link = new LinkModel(0, rate, LinkModel.queueFor(rate, Duration.ofMillis(150)), Duration.ofMillis(20), 41);
        try (TestBed bed = TestBed.emulated(link)) {
            Path chart = tmp.resolve("perf.svg");
            PerfRuns.PerfRun run = PerfRuns.ferryPerf(bed.clientNamespace(), bed.serverNamespace(), bed.serverAddress(), chart,
                    Duration.ofSeconds(150), "--transports", "tcp,utp", "--time", "10", "--no-fairness");
            assertTrue(run.ok(), () -> "ferry perf exited " + run.exitCode() + ": " + run.output());
            double iperfUp = PerfRuns.iperf3Mbps(bed.clientNamespace(), bed.serverNamespace(), bed.serverAddress(), 5, false, null);
            double iperfDown = PerfRuns.iperf3Mbps(bed.clientNamespace(), bed.serverNamespace(), bed.serverAddress(), 5, true, null);
            JsonNode report = JSON.readTree(run.json());
            assertEquals("ferry-perf/1", report.get("schema").asText());
            JsonNode up = report.get("tests").get(0);
            JsonNode down = report.get("tests").get(1);
            assertEquals("up", up.get("direction").asText());
            assertEquals("down", down.get("direction").asText());
            JsonNode utpUp = report.get("tests").get(2);
            assertEquals("utp", utpUp.get("transport").asText());
            System.out.printf("ferry perf on 200 Mbit/s, 40 ms: tcp up %.1f (iperf3 %.1f), down %.1f (iperf3 %.1f), utp up %.1f Mbit/s; %.0f s%n",
                    up.get("goodput_mbps").asDouble(), iperfUp, down.get("goodput_mbps").asDouble(), iperfDown,
                    utpUp.get("goodput_mbps").asDouble(), run.wallSeconds());
            assertTrue(ratio(up, iperfUp) > 0.5 && ratio(up, iperfUp) < 2, "tcp up near iperf3's: " + up + " vs " + iperfUp);
            assertTrue(ratio(down, iperfDown) > 0.5 && ratio(down, iperfDown) < 2, "tcp down near iperf3's: " + down + " vs " + iperfDown);
            assertTrue(utpUp.get("goodput_mbps").asDouble() > 0.25 * iperfUp, "utp filled a good part of the idle path: " + utpUp);
            assertTrue(report.get("fairness").isNull(), "--no-fairness");
            assertTrue(Files.readString(chart).startsWith("<svg"), "the chart was written");
        }
    }

    private static double ratio(JsonNode test, double iperf) {
        return test.get("goodput_mbps").asDouble() / iperf;
    }
}
