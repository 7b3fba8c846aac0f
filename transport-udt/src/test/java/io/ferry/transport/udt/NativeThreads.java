package io.ferry.transport.udt;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The threads of this process that the JVM does not know: every thread the JVM starts (Java threads,
 * GC, compiler and VM threads) appears with its native id in {@code jcmd PID Thread.print}; UDT's
 * threads, started by the C++ library, do not. Linux only ({@code /proc/self/task}).
 */
final class NativeThreads {

    private static final Pattern NID = Pattern.compile("nid=(0x[0-9a-fA-F]+|\\d+)");

    private NativeThreads() {
    }

    static boolean supported() {
        return Files.isDirectory(Path.of("/proc/self/task")) && Files.isExecutable(jcmd());
    }

    /** Thread ids not started by the JVM, read when the thread list holds still across the JVM's dump. */
    static Set<Integer> unknownToTheJvm() throws IOException, InterruptedException {
        for (int attempt = 0; attempt < 10; attempt++) {
            Set<Integer> before = tasks();
            Set<Integer> known = jvmThreads();
            Set<Integer> after = tasks();
            if (before.equals(after)) {
                after.removeAll(known);
                return after;
            }
        }
        throw new IllegalStateException("the thread list kept changing");
    }

    private static Set<Integer> tasks() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/task"))) {
            return s.map(p -> Integer.parseInt(p.getFileName().toString())).collect(Collectors.toCollection(HashSet::new));
        }
    }

    private static Set<Integer> jvmThreads() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(jcmd().toString(), Long.toString(ProcessHandle.current().pid()), "Thread.print")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("jcmd Thread.print failed: " + out);
        }
        Set<Integer> ids = new HashSet<>();
        Matcher m = NID.matcher(out);
        while (m.find()) {
            String v = m.group(1);
            ids.add(v.startsWith("0x") ? Integer.parseInt(v.substring(2), 16) : Integer.parseInt(v));
        }
        if (ids.isEmpty()) {
            throw new IllegalStateException("jcmd printed no thread ids: " + out);
        }
        return ids;
    }

    private static Path jcmd() {
        return Path.of(System.getProperty("java.home"), "bin", "jcmd");
    }
}
