package io.ferry.cli.perf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The verdict, the 80-column table, the JSON schema and the chart, from a report whose figures are known. */
class PerfReportTest {

    private static BulkResult row(String transport, String direction, double mbps) {
        long bytes = (long) (mbps * 1e6 / 8 * 5);
        return new BulkResult(transport, direction, 5, bytes, new double[]{mbps, mbps, mbps, mbps, mbps}, 40.2, 63.5,
                new Statistics(41.0, 12L, null), 0.8, Double.NaN, null);
    }

    private static PerfReport report() {
        FairnessResult.Join tcpJoins = new FairnessResult.Join(4.0, 0.04, 190.0, 0.97, 0.5, new double[]{150, 150, 20, 5}, new double[]{0, 0, 180, 190});
        FairnessResult.Join ledbatJoins = new FairnessResult.Join(4.0, 0.03, 192.0, 0.98, 0.5, new double[]{0, 0, 5, 6}, new double[]{190, 195, 192, 190});
        FairnessResult fairness = new FairnessResult("cubic", 195.0, 180.0, 180.0 / 195, 12.5, tcpJoins, ledbatJoins);
        return new PerfReport("10.0.0.2", 9300, 40.2, List.of(row("tcp", "up", 180), row("tcp", "down", 170), row("udt", "up", 190),
                row("udt", "down", 185), row("tcp?streams=4", "up", 188), row("tcp?streams=4", "down", 240),
                BulkResult.failed("quic", "up", 5, 40.2, "cannot connect to quic://10.0.0.2:9301: refused")), fairness, null, 104.3);
    }

    @Test
    void theVerdictNamesTheFastestEachWayTheOptionThatMattersAndTheScavengersManners() {
        List<String> v = report().verdict();
        assertTrue(v.contains("Fastest upload: udt at 190 Mbit/s; within 5 %: tcp?streams=4 188 (1.1× tcp's 180)."), v.toString());
        assertTrue(v.contains("Fastest download: tcp?streams=4 at 240 Mbit/s (1.4× tcp's 170)."), v.toString());
        assertTrue(v.stream().anyMatch(l -> l.startsWith("tcp --streams 4 makes little difference upload")), v.toString());
        assertTrue(v.stream().anyMatch(l -> l.startsWith("tcp --streams 4 helps download")), v.toString());
        assertTrue(v.stream().anyMatch(l -> l.startsWith("The scavenger (utp, LEDBAT) yields to TCP here: 4 %")), v.toString());
        assertTrue(v.stream().anyMatch(l -> l.contains("added 12.5 ms of queuing delay")), v.toString());
        assertTrue(v.stream().anyMatch(l -> l.startsWith("quic upload failed: cannot connect")), v.toString());
    }

    @Test
    void aScavengerThatKeepsTooMuchIsSaidNotToYield() {
        PerfReport r = report();
        FairnessResult f = r.fairness();
        FairnessResult.Join greedy = new FairnessResult.Join(4, 0.35, 120, 0.62, 0.5, new double[0], new double[0]);
        PerfReport worse = new PerfReport(r.host(), r.port(), r.idleRttMillis(), r.bulk(),
                new FairnessResult(f.tcpCc(), f.tcpAloneMbps(), f.ledbatAloneMbps(), f.idleUse(), 0.2, greedy, f.ledbatJoins()), null, 1);
        List<String> v = worse.verdict();
        assertTrue(v.stream().anyMatch(l -> l.startsWith("The scavenger (utp, LEDBAT) does not yield to TCP well here: 35 %")), v.toString());
        assertTrue(v.stream().anyMatch(l -> l.contains("added no measurable queuing delay")), v.toString());
    }

    @Test
    void theTableFitsAnEightyColumnTerminal() {
        StringWriter text = new StringWriter();
        PerfTable.print(report(), new PrintWriter(text));
        String[] lines = text.toString().split("\n");
        for (String line : lines) {
            assertTrue(line.length() < 80, "at most 79 columns: '" + line + "' (" + line.length() + ")");
        }
        assertTrue(text.toString().contains("tcp?streams=4   down     240.0    63.5        12        -   0.80     -"), text.toString());
        assertTrue(text.toString().contains("quic            up      failed: cannot connect"), text.toString());
        assertTrue(text.toString().contains("tcp joins ledbat: ledbat's share 4 %, tcp 190.0 Mbit/s (0.97× alone)"), text.toString());
    }

    @Test
    void theJsonFollowsTheDocumentedSchema() throws Exception {
        JsonNode j = new ObjectMapper().readTree(PerfJson.of(report()));
        assertEquals("ferry-perf/1", j.get("schema").asText());
        assertEquals("10.0.0.2", j.get("server").get("host").asText());
        assertEquals(9300, j.get("server").get("port").asInt());
        assertEquals(40.2, j.get("idle_rtt_ms").asDouble());
        assertEquals(7, j.get("tests").size());
        JsonNode first = j.get("tests").get(0);
        for (String field : List.of("transport", "direction", "seconds", "bytes", "goodput_mbps", "per_second_mbps", "rtt_idle_ms",
                "rtt_loaded_ms", "transport_rtt_ms", "retransmissions", "lost", "sender_cpu_s_per_gib", "receiver_cpu_s_per_gib", "error")) {
            assertTrue(first.has(field), "every test has " + field + ": " + first);
        }
        assertEquals(180.0, first.get("goodput_mbps").asDouble(), 0.001);
        assertTrue(first.get("lost").isNull(), "a figure the transport does not give is null");
        assertTrue(first.get("receiver_cpu_s_per_gib").isNull(), "NaN is null");
        assertTrue(first.get("error").isNull());
        JsonNode failed = j.get("tests").get(6);
        assertTrue(failed.get("goodput_mbps").isNull() && failed.get("error").asText().contains("refused"), failed.toString());
        JsonNode f = j.get("fairness");
        assertEquals("cubic", f.get("tcp_cc").asText());
        assertEquals(0.04, f.get("tcp_joins").get("ledbat_share").asDouble(), 1e-9);
        assertEquals(4, f.get("ledbat_joins").get("ledbat_series_mbps").size());
        assertTrue(j.get("fairness_skipped").isNull());
        assertTrue(j.get("verdict").isArray() && j.get("verdict").size() >= 5);
    }

    @Test
    void theChartIsSvgWithABarPerTestAndBothJoinRuns() {
        String svg = PerfChart.of(report());
        assertTrue(svg.startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""), svg);
        assertEquals(6, svg.split("<rect x=\"170\"", -1).length - 1, "a bar per successful test");
        assertTrue(svg.contains("tcp?streams=4 down") && svg.contains("failed"), "labels and the failed row");
        assertEquals(4, svg.split("<polyline", -1).length - 1, "ledbat and tcp in each join run");
        assertFalse(svg.contains("NaN"), "no NaN in coordinates");
    }
}
