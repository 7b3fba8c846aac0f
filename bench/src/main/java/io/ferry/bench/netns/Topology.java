package io.ferry.bench.netns;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.emulator.TunDevice;
import io.ferry.bench.emulator.TunEmulator;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Two hosts, a client and a server, each in its own network namespace, joined either through the
 * {@link TunEmulator} (an emulated bottleneck for all their traffic) or directly by a veth pair.
 * The client has {@link #CLIENT_ADDRESS}, the server {@link #SERVER_ADDRESS}.
 *
 * <p>Both namespaces get Linux's {@code reno}, {@code cubic} and {@code bbr} in
 * {@code tcp_allowed_congestion_control}, TCP buffer maxima of 64 MiB ({@code tcp_rmem}/{@code tcp_wmem},
 * enough for long fat paths), {@code tcp_no_metrics_save} (no state carried from one connection to the
 * next) and a larger, faster-expiring IP fragment reassembly memory. {@link #close()} removes everything; a shutdown hook closes what is still open when the JVM
 * exits, and namespaces left behind by a process that no longer exists are deleted on the next start.
 * Needs root (see {@link RootAccess}).
 */
public final class Topology implements AutoCloseable {

    /** The client host's address. */
    public static final String CLIENT_ADDRESS = "10.77.0.1";
    /** The server host's address. */
    public static final String SERVER_ADDRESS = "10.77.0.2";
    /** The prefix of every namespace name this class creates: {@code ferry-PID-N-c} and {@code ferry-PID-N-s}. */
    public static final String PREFIX = "ferry-";

    private static final Pattern OURS = Pattern.compile("^" + PREFIX + "(\\d+)-\\d+-[cs]\\b.*");
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static final Set<Topology> OPEN = ConcurrentHashMap.newKeySet();
    private static final long TCP_BUFFER_MAX = 64L << 20;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (Topology t : OPEN) {
                t.close();
            }
        }, "ferry-topology-teardown"));
    }

    private final NetworkNamespace client;
    private final NetworkNamespace server;
    private final TunEmulator emulator;
    private boolean closed;

    private Topology(NetworkNamespace client, NetworkNamespace server, TunEmulator emulator) {
        this.client = client;
        this.server = server;
        this.emulator = emulator;
    }

    /**
     * Client and server joined through the TUN emulator.
     *
     * @param clientToServer what the link does to packets from the client to the server
     * @param serverToClient what the link does to packets from the server to the client
     */
    public static Topology emulated(LinkModel clientToServer, LinkModel serverToClient) throws IOException {
        return build((c, s) -> {
            TunDevice clientTun = call(c, () -> TunDevice.create("ferry0"));
            TunDevice serverTun;
            try {
                serverTun = call(s, () -> TunDevice.create("ferry0"));
            } catch (IOException e) {
                clientTun.close();
                throw e;
            }
            TunEmulator emulator = new TunEmulator(clientTun, serverTun, clientToServer, serverToClient);
            try {
                configure(c, "ferry0", CLIENT_ADDRESS, SERVER_ADDRESS);
                configure(s, "ferry0", SERVER_ADDRESS, CLIENT_ADDRESS);
            } catch (IOException e) {
                emulator.close();
                throw e;
            }
            return emulator;
        });
    }

    /** Client and server joined directly by a veth pair: no emulation, the kernel's own speed. */
    public static Topology veth() throws IOException {
        return build((c, s) -> {
            c.ip("link", "add", "ferry0", "type", "veth", "peer", "name", "ferry1", "netns", s.name());
            c.ip("addr", "add", CLIENT_ADDRESS + "/30", "dev", "ferry0");
            s.ip("addr", "add", SERVER_ADDRESS + "/30", "dev", "ferry1");
            c.ip("link", "set", "ferry0", "up");
            s.ip("link", "set", "ferry1", "up");
            return null;
        });
    }

    private interface Link {
        TunEmulator connect(NetworkNamespace client, NetworkNamespace server) throws IOException;
    }

    private static Topology build(Link link) throws IOException {
        removeStale();
        String base = PREFIX + ProcessHandle.current().pid() + "-" + COUNTER.incrementAndGet();
        NetworkNamespace c = NetworkNamespace.create(base + "-c");
        NetworkNamespace s;
        try {
            s = NetworkNamespace.create(base + "-s");
        } catch (IOException e) {
            c.close();
            throw e;
        }
        try {
            tune(c);
            tune(s);
            Topology t = new Topology(c, s, link.connect(c, s));
            OPEN.add(t);
            return t;
        } catch (IOException | RuntimeException e) {
            try {
                c.close();
            } finally {
                s.close();
            }
            throw e;
        }
    }

    private static void configure(NetworkNamespace ns, String dev, String local, String peer) throws IOException {
        ns.ip("addr", "add", local, "peer", peer, "dev", dev);
        ns.ip("link", "set", "dev", dev, "txqueuelen", "10000", "up");
    }

    private static void tune(NetworkNamespace ns) throws IOException {
        try {
            allowCongestionControls(ns);
            ns.sysctl("net.ipv4.tcp_rmem", "4096 131072 " + TCP_BUFFER_MAX);
            ns.sysctl("net.ipv4.tcp_wmem", "4096 16384 " + TCP_BUFFER_MAX);
            ns.sysctl("net.ipv4.tcp_no_metrics_save", "1");
            ns.sysctl("net.ipv4.conf.all.rp_filter", "0");
            // Datagrams that lost a fragment on the emulated link wait 30 s for reassembly by default and
            // fill the 4 MB reassembly memory, after which every fragment is dropped: keep that from
            // dominating fragmentation measurements.
            ns.sysctl("net.ipv4.ipfrag_high_thresh", String.valueOf(64L << 20));
            ns.sysctl("net.ipv4.ipfrag_time", "5");
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("cannot set the sysctls of namespace " + ns.name() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Adds reno, cubic and bbr to the namespace's allowed list. On kernels where that sysctl is global
     * it is read-only inside a namespace; root may then still choose any available algorithm per socket
     * (CAP_NET_ADMIN bypasses the allowed list), so the refusal is not an error.
     */
    private static void allowCongestionControls(NetworkNamespace ns) throws Exception {
        String key = "net.ipv4.tcp_allowed_congestion_control";
        if (List.of(ns.readSysctl(key).split("\\s+")).containsAll(List.of("reno", "cubic", "bbr"))) {
            return;
        }
        try {
            ns.sysctl(key, "reno cubic bbr");
        } catch (java.nio.file.AccessDeniedException readOnlyHere) {
            // Global and read-only in this namespace: root bypasses the list, see above.
        }
    }

    private static <T> T call(NetworkNamespace ns, java.util.concurrent.Callable<T> task) throws IOException {
        try {
            return ns.call(task);
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
    }

    /** Deletes namespaces named by this class whose creating process no longer runs. */
    static void removeStale() throws IOException {
        for (String line : Commands.run("ip", "netns", "list").split("\n")) {
            Matcher m = OURS.matcher(line.trim());
            if (m.matches()) {
                long pid = Long.parseLong(m.group(1));
                if (ProcessHandle.of(pid).isEmpty()) {
                    Commands.run("ip", "netns", "del", line.trim().split("\\s+")[0]);
                }
            }
        }
    }

    /** Names of the namespaces of this class that exist now (for checks that nothing was left behind). */
    public static List<String> existingNamespaces() throws IOException {
        List<String> names = new ArrayList<>();
        for (String line : Commands.run("ip", "netns", "list").split("\n")) {
            String name = line.trim().split("\\s+")[0];
            if (name.startsWith(PREFIX)) {
                names.add(name);
            }
        }
        return names;
    }

    /** The client host. */
    public NetworkNamespace client() {
        return client;
    }

    /** The server host. */
    public NetworkNamespace server() {
        return server;
    }

    /** The client as a {@link Host} at {@link #CLIENT_ADDRESS}. */
    public Host clientHost() {
        return Host.in(client, CLIENT_ADDRESS);
    }

    /** The server as a {@link Host} at {@link #SERVER_ADDRESS}. */
    public Host serverHost() {
        return Host.in(server, SERVER_ADDRESS);
    }

    /** The emulator between the hosts, if they are joined through one. */
    public Optional<TunEmulator> emulator() {
        return Optional.ofNullable(emulator);
    }

    /** Stops the emulator and deletes both namespaces. Idempotent; failures are printed, not thrown. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        OPEN.remove(this);
        if (emulator != null) {
            emulator.close();
        }
        for (NetworkNamespace ns : new NetworkNamespace[] {client, server}) {
            try {
                ns.close();
            } catch (IOException e) {
                System.err.println("topology teardown: " + e.getMessage());
            }
        }
    }
}
