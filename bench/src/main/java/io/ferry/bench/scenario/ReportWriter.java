package io.ferry.bench.scenario;

import io.ferry.bench.report.Json;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Writes {@code results.json} and {@code report.md} for a run of the scenario runner. */
final class ReportWriter {

    private ReportWriter() {
    }

    static void write(Path out, Profile profile, TransportCatalog transports, List<StudyResult> results, double seconds) throws IOException {
        Map<String, Object> machine = Machine.describe();
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("machine", machine);
        root.put("profile", profile.name().toLowerCase());
        root.put("runtime_seconds", seconds);
        Map<String, Object> ts = new LinkedHashMap<>();
        for (String t : transports.all()) {
            ts.put(t, transports.installed(t) ? "installed" : "transport not installed");
        }
        root.put("transports", ts);
        List<Object> studies = new ArrayList<>();
        StringBuilder md = new StringBuilder("# Ferry scenario report\n\n");
        md.append(Units.f("%s · %s cores (%s) · %s · %s · profile `%s` · %.0f s%n%n", machine.get("date"), machine.get("cores"),
                machine.get("cpu"), machine.get("kernel"), machine.get("jdk"), profile.name().toLowerCase(), seconds));
        md.append("Transports: ");
        ts.forEach((k, v) -> md.append('`').append(k).append("` ").append(v).append("; "));
        md.append("\n\n");
        for (StudyResult r : results) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("id", r.id());
            s.put("title", r.title());
            s.put("status", r.skipReason() == null ? "ran" : "skipped");
            if (r.skipReason() != null) {
                s.put("reason", r.skipReason());
            }
            s.put("charts", r.charts());
            s.put("data", r.data());
            studies.add(s);
            md.append("## ").append(r.title()).append("\n\n");
            if (r.skipReason() != null) {
                md.append("Skipped: ").append(r.skipReason()).append("\n\n");
                continue;
            }
            md.append(r.markdown()).append('\n');
            for (String chart : r.charts()) {
                md.append("![").append(chart).append("](").append(chart).append(")\n\n");
            }
        }
        root.put("studies", studies);
        Files.writeString(out.resolve("results.json"), Json.write(root), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("report.md"), md, StandardCharsets.UTF_8);
    }
}
