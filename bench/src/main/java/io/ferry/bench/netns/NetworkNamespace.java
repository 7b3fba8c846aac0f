package io.ferry.bench.netns;

import io.ferry.bench.emulator.Namespaces;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A named network namespace ({@code ip netns add}) with a thread that lives inside it.
 *
 * <p>{@code setns} switches only the calling thread, and Linux threads start in the namespace of the
 * thread that creates them. So code submitted through {@link #call(Callable)} runs in this namespace,
 * and every thread it starts (Netty event loops included, which start on their first task) inherits
 * it: create a {@code Transports} instance and make its first listen/connect calls through
 * {@link #call(Callable)} and all its sockets live here.
 */
public final class NetworkNamespace implements AutoCloseable {

    private final String name;
    private final ExecutorService thread;
    private volatile Thread inside;
    private boolean closed;

    private NetworkNamespace(String name) {
        this.name = name;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "netns-" + name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Creates a namespace with this name, brings its loopback up and starts its thread inside it. */
    public static NetworkNamespace create(String name) throws IOException {
        Commands.run("ip", "netns", "add", name);
        NetworkNamespace ns = new NetworkNamespace(name);
        try {
            ns.thread.submit(() -> {
                Namespaces.enter(Path.of("/var/run/netns", name));
                ns.inside = Thread.currentThread();
            }).get();
            ns.ip("link", "set", "lo", "up");
        } catch (IOException e) {
            ns.close();
            throw e;
        } catch (ExecutionException | InterruptedException | RuntimeException e) {
            ns.close();
            throw new IOException("cannot move a thread into namespace " + name + ": " + e.getMessage(), e);
        }
        return ns;
    }

    /** The namespace's name. */
    public String name() {
        return name;
    }

    /** Runs {@code ip ARGS...} inside this namespace. */
    public String ip(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("ip", "-n", name));
        command.addAll(List.of(args));
        return Commands.run(command);
    }

    /** Runs any command inside this namespace ({@code ip netns exec}). */
    public String exec(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", name));
        command.addAll(List.of(args));
        return Commands.run(command);
    }

    /** Runs {@code task} on this namespace's thread and waits for it. */
    public <T> T call(Callable<T> task) throws Exception {
        Future<T> result = thread.submit(() -> {
            if (Thread.currentThread() != inside) {
                throw new IllegalStateException("the thread of namespace " + name + " is not inside it");
            }
            return task.call();
        });
        try {
            return result.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    /** Sets a sysctl of this namespace, e.g. {@code net.ipv4.tcp_rmem}, by writing its /proc/sys file from inside it. */
    public void sysctl(String key, String value) throws Exception {
        Path file = Path.of("/proc/sys", key.replace('.', '/'));
        call(() -> Files.writeString(file, value + "\n", StandardCharsets.US_ASCII));
    }

    /** Reads a sysctl of this namespace. */
    public String readSysctl(String key) throws Exception {
        Path file = Path.of("/proc/sys", key.replace('.', '/'));
        // Files.readString trusts the size procfs reports and returns a truncated value; read the stream instead.
        return call(() -> {
            try (java.io.InputStream in = Files.newInputStream(file)) {
                return new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
            }
        });
    }

    /** Stops the namespace's thread and deletes the namespace (its interfaces go with it). Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        thread.shutdownNow();
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Commands.run("ip", "netns", "del", name);
    }
}
