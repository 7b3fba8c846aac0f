package io.ferry.bench.transfer;

import io.ferry.bench.netns.Host;
import io.ferry.transport.Transports;

import java.util.concurrent.Callable;

/**
 * A {@link Transports} instance living on a {@link Host}: created on the host's thread, and every
 * listen/connect goes through {@link #call(Callable)}, so its sockets and the event-loop threads
 * Netty starts for it belong to the host's network namespace.
 */
public final class Peer implements AutoCloseable {

    private final Host host;
    private final Transports transports;

    private Peer(Host host, Transports transports) {
        this.host = host;
        this.transports = transports;
    }

    /** Creates the peer's transports on the host. */
    public static Peer on(Host host) throws Exception {
        return new Peer(host, host.call(Transports::create));
    }

    /** The host. */
    public Host host() {
        return host;
    }

    /** The transports; use them only inside {@link #call(Callable)}. */
    public Transports transports() {
        return transports;
    }

    /** Runs {@code task} on the host. */
    public <T> T call(Callable<T> task) throws Exception {
        return host.call(task);
    }

    /** Closes every transport of this peer. */
    @Override
    public void close() {
        transports.close();
    }
}
