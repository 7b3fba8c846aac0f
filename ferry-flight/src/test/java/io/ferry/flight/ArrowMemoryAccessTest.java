package io.ferry.flight;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JVM without the flag Arrow's memory needs gets a clear refusal when it makes a Flight server, instead of
 * a DoPut that waits forever.
 */
class ArrowMemoryAccessTest {

    @Test
    @Timeout(120)
    void aJvmWithoutTheAddOpensFlagIsToldWhatToAdd() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), WithoutAddOpens.class.getName()))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe JVM ended");
        assertTrue(out.contains("refused: Arrow's memory cannot work in this JVM: run it with --add-opens=java.base/java.nio=ALL-UNNAMED"),
                () -> "the probe's output: " + out);
    }
}
