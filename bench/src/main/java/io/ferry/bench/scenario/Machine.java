package io.ferry.bench.scenario;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

/** The machine and date a report was made on. */
final class Machine {

    private Machine() {
    }

    static Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("date", ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        m.put("cores", Runtime.getRuntime().availableProcessors());
        m.put("cpu", cpuModel());
        m.put("kernel", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        m.put("memory_mib", memoryMib());
        return m;
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static long memoryMib() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
                    .mapToLong(l -> Long.parseLong(l.replaceAll("\\D", "")) / 1024).findFirst().orElse(0);
        } catch (IOException e) {
            return 0;
        }
    }
}
