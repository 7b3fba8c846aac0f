package io.ferry.testsuite.engines;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The kernel's view of one UDP port while a test runs (Linux, {@code /proc/net/udp} and {@code udp6}): which
 * sockets hold it, when one joins or leaves, and how many datagrams each dropped. A listener's sockets share
 * their port with {@code SO_REUSEPORT}; a socket of any process of the same user can join that group, and
 * the kernel then sends some peers' datagrams to it. A failure report that shows the group's changes, the
 * process each member belongs to and the drops of each rules such causes in or out.
 */
final class PortWatch implements AutoCloseable {
    private static final long PERIOD_MILLIS = 200;

    private final int port;
    private final long start = System.nanoTime();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "port-watch");
        t.setDaemon(true);
        return t;
    });
    /** Every socket seen on the port by inode: the last line the kernel gave for it, and its highest receive queue. */
    private final Map<Long, Member> members = new LinkedHashMap<>();
    private final List<String> changes = Collections.synchronizedList(new ArrayList<>());
    private final boolean available;

    private static final class Member {
        String local;
        long rxQueue;
        long maxRxQueue;
        long drops;
        boolean present;
        String owner;
        /** When drops grew: "from-to ms +N" per run of consecutive samples with new drops. */
        final List<String> dropSpells = new ArrayList<>();
        long spellStart = -1;
        long spellLast;
        long spellDrops;

        void dropsNow(long total, long at) {
            long added = drops < 0 || total < 0 ? 0 : total - drops;
            if (added > 0) {
                if (spellStart < 0) {
                    spellStart = at;
                    spellDrops = 0;
                }
                spellLast = at;
                spellDrops += added;
            } else if (spellStart >= 0) {
                endSpell();
            }
            drops = total;
        }

        void endSpell() {
            if (spellStart >= 0) {
                dropSpells.add(spellStart + "-" + spellLast + " ms +" + spellDrops);
                spellStart = -1;
            }
        }
    }

    PortWatch(int port) {
        this.port = port;
        this.available = Files.isReadable(Path.of("/proc/net/udp"));
        if (available) {
            synchronized (members) {
                sample(false);
            }
            timer.scheduleAtFixedRate(() -> {
                synchronized (members) {
                    sample(true);
                }
            }, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** The port's sockets with their drops and owners, and every change of the group seen; "" off Linux or with none (TCP). */
    String report() {
        if (!available) {
            return "";
        }
        synchronized (members) {
            sample(true);
            if (members.isEmpty()) {
                return "";
            }
            StringBuilder s = new StringBuilder(" [UDP port ").append(port).append(": ");
            List<String> each = new ArrayList<>();
            members.forEach((inode, m) -> each.add("socket " + inode + " " + m.local + (m.present ? "" : " (gone)")
                    + " owned by " + owner(inode, m) + ", receive queue " + m.rxQueue + " B (highest " + m.maxRxQueue
                    + "), drops " + m.drops + dropSpells(m)));
            s.append(String.join("; ", each));
            synchronized (changes) {
                s.append(changes.isEmpty() ? "; no socket joined or left the port while the test ran"
                        : "; changes: " + String.join("; ", changes));
            }
            return s.append(']').toString();
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    private void sample(boolean noteChanges) {
        Map<Long, String[]> now = new LinkedHashMap<>();
        read(Path.of("/proc/net/udp"), now);
        read(Path.of("/proc/net/udp6"), now);
        for (Map.Entry<Long, String[]> e : now.entrySet()) {
            String[] f = e.getValue();
            Member m = members.get(e.getKey());
            boolean fresh = m == null;
            if (fresh) {
                m = new Member();
                members.put(e.getKey(), m);
                if (noteChanges) {
                    m.owner = ownerOf(e.getKey());
                    changes.add("+" + millis() + " ms socket " + e.getKey() + " " + f[1] + " joined, owned by " + m.owner);
                }
            }
            m.present = true;
            m.local = f[1];
            String[] queues = f[4].split(":");
            m.rxQueue = Long.parseLong(queues[1], 16);
            m.maxRxQueue = Math.max(m.maxRxQueue, m.rxQueue);
            long dropsNow = f.length > 12 ? Long.parseLong(f[12]) : -1;
            if (fresh) {
                m.drops = dropsNow;
            } else {
                m.dropsNow(dropsNow, millis());
            }
        }
        for (Map.Entry<Long, Member> e : members.entrySet()) {
            if (e.getValue().present && !now.containsKey(e.getKey())) {
                e.getValue().present = false;
                if (noteChanges) {
                    changes.add("+" + millis() + " ms socket " + e.getKey() + " left");
                }
            }
        }
    }

    private static String dropSpells(Member m) {
        m.endSpell();
        return m.dropSpells.isEmpty() ? "" : " (when, since the watch began: " + String.join(", ", m.dropSpells) + ")";
    }

    private void read(Path table, Map<Long, String[]> into) {
        List<String> lines;
        try {
            lines = Files.readAllLines(table);
        } catch (IOException e) {
            return;
        }
        String suffix = ":" + String.format(Locale.ROOT, "%04X", port);
        for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
            String[] f = line.trim().split("\\s+");
            if (f.length > 9 && f[1].endsWith(suffix)) {
                into.put(Long.parseLong(f[9]), f);
            }
        }
    }

    private String owner(long inode, Member m) {
        if (m.owner == null) {
            m.owner = ownerOf(inode);
        }
        return m.owner;
    }

    /** "this JVM", "pid N (command)" or "no process found" (it closed, or /proc hides it). */
    private static String ownerOf(long inode) {
        String link = "socket:[" + inode + "]";
        if (holds(Path.of("/proc/self/fd"), link)) {
            return "this JVM";
        }
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
            for (Path proc : procs) {
                if (holds(proc.resolve("fd"), link)) {
                    String command;
                    try {
                        command = new String(Files.readAllBytes(proc.resolve("cmdline"))).replace('\0', ' ').trim();
                    } catch (IOException e) {
                        command = "?";
                    }
                    return "pid " + proc.getFileName() + " (" + (command.length() > 160 ? command.substring(0, 160) + "..." : command) + ")";
                }
            }
        } catch (IOException e) {
            return "no process found (" + e + ")";
        }
        return "no process found";
    }

    private static boolean holds(Path fds, String link) {
        try (DirectoryStream<Path> all = Files.newDirectoryStream(fds)) {
            for (Path fd : all) {
                try {
                    if (link.equals(Files.readSymbolicLink(fd).toString())) {
                        return true;
                    }
                } catch (IOException | UnsupportedOperationException e) {
                    // the descriptor closed meanwhile
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    private long millis() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
