package io.ferry.bench.netns;

import java.util.concurrent.Callable;

/**
 * Where one end of an experiment runs: this process's own network stack (loopback) or a network
 * namespace. Sockets must be created through {@link #call(Callable)} so that they belong to the host.
 */
public interface Host {

    /** The host's IP address as a literal, e.g. {@code 127.0.0.1} or {@code 10.77.0.2}. */
    String address();

    /** Runs {@code task} on this host (in its namespace, if it has one) and returns its result. */
    <T> T call(Callable<T> task) throws Exception;

    /** A short name for reports. */
    String name();

    /** The loopback host of this process: tasks run on the calling thread. */
    static Host loopback() {
        return new Host() {
            @Override
            public String address() {
                return "127.0.0.1";
            }

            @Override
            public <T> T call(Callable<T> task) throws Exception {
                return task.call();
            }

            @Override
            public String name() {
                return "loopback";
            }
        };
    }

    /** A host inside a network namespace, with the given address. */
    static Host in(NetworkNamespace namespace, String address) {
        return new Host() {
            @Override
            public String address() {
                return address;
            }

            @Override
            public <T> T call(Callable<T> task) throws Exception {
                return namespace.call(task);
            }

            @Override
            public String name() {
                return namespace.name();
            }
        };
    }
}
