package io.ferry.build;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Over picocli's real jar (Java 5 class files): rewritten, verified by the type-checking verifier, still working. */
class UpgradeClassFilesTest {

    @TempDir
    Path tmp;

    private Path picocliCopy() throws Exception {
        Path original = Path.of(picocli.CommandLine.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return Files.copy(original, tmp.resolve("picocli.jar"));
    }

    private static Map<String, byte[]> entries(Path jar) throws IOException {
        Map<String, byte[]> all = new TreeMap<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (ZipEntry e : java.util.Collections.list(zip.entries())) {
                all.put(e.getName(), zip.getInputStream(e).readAllBytes());
            }
        }
        return all;
    }

    @Test
    void picocliBecomesJava8ClassFilesThatLoadVerifyAndStillBuildACommand() throws Exception {
        Path jar = picocliCopy();
        Map<String, byte[]> before = entries(jar);
        long old = before.entrySet().stream().filter(e -> e.getKey().startsWith("picocli/") && e.getKey().endsWith(".class"))
                .filter(e -> UpgradeClassFiles.majorVersion(e.getValue()) < UpgradeClassFiles.OLDEST_KEPT).count();
        assertTrue(old > 100, "picocli 4.7 ships Java 5 class files: " + old);

        assertEquals(old, UpgradeClassFiles.upgrade(jar, "picocli/"));

        Map<String, byte[]> after = entries(jar);
        assertEquals(before.keySet(), after.keySet(), "the same entries, in a jar of the same name");
        List<String> classes = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : after.entrySet()) {
            if (e.getKey().startsWith("picocli/") && e.getKey().endsWith(".class")) {
                assertEquals(52, UpgradeClassFiles.majorVersion(e.getValue()), e.getKey());
                classes.add(e.getKey().replace('/', '.').substring(0, e.getKey().length() - ".class".length()));
            } else {
                assertArrayEquals(before.get(e.getKey()), e.getValue(), e.getKey() + " copied as it was");
            }
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            for (String name : classes) {
                Class.forName(name, true, loader); // linked, so verified with the new frames: a VerifyError would fail here
            }
            Class<?> commandLine = loader.loadClass("picocli.CommandLine");
            Object command = loader.loadClass("picocli.AutoComplete$GenerateCompletion").getDeclaredConstructor().newInstance();
            Object cli = commandLine.getConstructor(Object.class).newInstance(command);
            String usage = (String) commandLine.getMethod("getUsageMessage").invoke(cli);
            assertTrue(usage.contains("generate-completion"), usage);
        }
    }

    @Test
    void classesOutsideThePrefixesAndOtherEntriesStayAsTheyWere() throws Exception {
        Path jar = picocliCopy();
        byte[] before = Files.readAllBytes(jar);
        Map<String, byte[]> entriesBefore = entries(jar);
        assertEquals(0, UpgradeClassFiles.upgrade(jar, "nothing/here/"));
        Map<String, byte[]> entriesAfter = entries(jar);
        assertEquals(entriesBefore.keySet(), entriesAfter.keySet());
        entriesBefore.forEach((name, bytes) -> assertArrayEquals(bytes, entriesAfter.get(name), name));
        assertTrue(before.length > 0);
    }

    @Test
    void aClassThatCannotBeRewrittenIsNamedAndTheJarIsLeftAlone() throws Exception {
        Path jar = tmp.resolve("bad.jar");
        byte[] broken = {(byte) 0xCA, (byte) 0xFE, (byte) 0xBA, (byte) 0xBE, 0, 0, 0, 49, 0, 7}; // a Java 5 header, then nothing
        try (OutputStream raw = Files.newOutputStream(jar); ZipOutputStream out = new ZipOutputStream(raw)) {
            out.putNextEntry(new ZipEntry("picocli/Broken.class"));
            out.write(broken);
            out.closeEntry();
        }
        byte[] before = Files.readAllBytes(jar);
        IOException e = assertThrows(IOException.class, () -> UpgradeClassFiles.upgrade(jar, "picocli/"));
        assertTrue(e.getMessage().startsWith("cannot rewrite picocli/Broken.class in " + jar), e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(jar), "untouched");
        try (var left = Files.list(tmp)) {
            assertEquals(List.of(jar), left.toList(), "no temporary file left behind");
        }
    }
}
