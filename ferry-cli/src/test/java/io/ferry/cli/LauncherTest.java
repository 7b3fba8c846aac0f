package io.ferry.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code ./ferry} launcher's rebuild, in a copy of the project's layout whose {@code mvnw} stands in for Maven:
 * it writes the new jar over the old path in place, as the shade plugin does. The launcher under test is the
 * project's own script; Maven itself is not run (it would rebuild this module from inside its own build).
 */
class LauncherTest {

    @TempDir
    Path root;
    private Path jar;
    private Path lib;
    private final List<Process> started = new ArrayList<>();

    @BeforeEach
    void layout() throws Exception {
        Path launcher = Path.of(System.getProperty("user.dir")).getParent().resolve("ferry");
        Files.copy(launcher, root.resolve("ferry"));
        root.resolve("ferry").toFile().setExecutable(true);
        Files.writeString(root.resolve("pom.xml"), "<project/>");
        Path target = Files.createDirectories(root.resolve("ferry-cli/target/lib")).getParent();
        jar = target.resolve("ferry.jar");
        lib = target.resolve("lib/dep.jar");
        runnableJar(jar, "old");
        runnableJar(lib, "old");
        runnableJar(root.resolve("new.jar"), "new");
        Files.writeString(root.resolve("mvnw"), String.join("\n",
                "#!/bin/sh",
                "echo build >> builds.log",
                "sleep \"${FAKE_BUILD_SECONDS:-0}\"",
                "mkdir -p ferry-cli/target/lib",
                "cat new.jar > ferry-cli/target/ferry.jar   # in place, as the shade plugin writes its outputFile",
                "cat new.jar > ferry-cli/target/lib/dep.jar # in place, as the dependency plugin's copy does",
                ""));
        root.resolve("mvnw").toFile().setExecutable(true);
        Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        sourcesChanged();
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (Process p : started) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aRebuildLeavesTheJarOfARunningFerryWhole() throws Exception {
        byte[] oldJar = Files.readAllBytes(jar);
        byte[] oldLib = Files.readAllBytes(lib);
        // what a running receiver holds: its jar and the jars of its Class-Path, open
        try (FileChannel running = FileChannel.open(jar); FileChannel runningLib = FileChannel.open(lib)) {
            Process p = launch();
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the launcher returns");
            assertEquals("new", new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip(),
                    "it runs the rebuilt jar; stderr: " + new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            assertEquals(0, p.exitValue());
            assertArrayEquals(oldJar, contents(running), "the running ferry's jar is what it started with");
            assertArrayEquals(oldLib, contents(runningLib), "and so are the jars beside it");
        }
        assertEquals(1, builds());
    }

    @Test
    void launchersStartedDuringABuildWaitForItInsteadOfBuildingAgain() throws Exception {
        Assumptions.assumeTrue(new ProcessBuilder("sh", "-c", "command -v flock").start().waitFor() == 0, "flock installed");
        Process first = launch("FAKE_BUILD_SECONDS", "2");
        waitFor(() -> builds() == 1, "the first launcher's build started");
        Process second = launch("FAKE_BUILD_SECONDS", "2");
        for (Process p : List.of(first, second)) {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "each launcher returns");
            assertEquals(0, p.exitValue(), new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            assertEquals("new", new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
        }
        assertEquals(1, builds(), "one build for both");
    }

    @Test
    void aFerryStartedByTheLauncherDoesNotHoldTheBuildLock() throws Exception {
        Assumptions.assumeTrue(new ProcessBuilder("sh", "-c", "command -v flock").start().waitFor() == 0, "flock installed");
        Process receiver = launch(List.of("sleep")); // builds, then runs for a minute, as a receiver would
        assertEquals("new", new String(receiver.getInputStream().readNBytes(3), StandardCharsets.UTF_8));
        sourcesChanged();
        Process next = launch();
        assertTrue(next.waitFor(60, TimeUnit.SECONDS), "the next launcher's build is not held up by the running ferry");
        assertEquals(0, next.exitValue(), new String(next.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        assertEquals(2, builds());
        assertTrue(receiver.isAlive(), "the first still runs");
    }

    // ------------------------------------------------------------------ helpers

    private Process launch(String... env) throws IOException {
        return launch(List.of(), env);
    }

    private Process launch(List<String> args, String... env) throws IOException {
        List<String> command = new ArrayList<>(List.of("sh", root.resolve("ferry").toString()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).directory(root.toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("FERRY_JAVA_OPTS");
        for (int i = 0; i < env.length; i += 2) {
            pb.environment().put(env[i], env[i + 1]);
        }
        Process p = pb.start();
        started.add(p);
        return p;
    }

    /** A source of ferry-cli newer than the jar, so the launcher rebuilds. */
    private void sourcesChanged() throws IOException {
        Path source = Files.createDirectories(root.resolve("ferry-cli/src/main")).resolve("Changed.java");
        Files.writeString(source, "// " + System.nanoTime());
        Files.setLastModifiedTime(source, FileTime.fromMillis(System.currentTimeMillis() + 1_000));
    }

    private int builds() {
        Path log = root.resolve("builds.log");
        try {
            return Files.exists(log) ? Files.readAllLines(log).size() : 0;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static byte[] contents(FileChannel channel) throws IOException {
        ByteBuffer all = ByteBuffer.allocate(Math.toIntExact(channel.size()));
        while (all.hasRemaining() && channel.read(all, all.position()) > 0) {
            // until the whole file is read
        }
        return Arrays.copyOf(all.array(), all.position());
    }

    private static void waitFor(java.util.function.BooleanSupplier condition, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what);
            Thread.sleep(20);
        }
    }

    /** A jar whose main class prints {@code marker}, and with the argument {@code sleep} then waits a minute. */
    private void runnableJar(Path path, String marker) throws IOException {
        Path src = Files.createDirectories(root.resolve("src-" + marker));
        Path classes = Files.createDirectories(root.resolve("classes-" + marker));
        Files.writeString(src.resolve("Main.java"), "public class Main { public static void main(String[] a) throws Exception {"
                + " System.out.print(\"" + marker + "\"); System.out.flush();"
                + " if (a.length > 0 && a[0].equals(\"sleep\")) Thread.sleep(60_000); } }");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, "-d", classes.toString(), src.resolve("Main.java").toString()));
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "Main");
        try (OutputStream out = Files.newOutputStream(path); JarOutputStream jarOut = new JarOutputStream(out, manifest)) {
            jarOut.putNextEntry(new JarEntry("Main.class"));
            jarOut.write(Files.readAllBytes(classes.resolve("Main.class")));
            jarOut.closeEntry();
        }
    }
}
