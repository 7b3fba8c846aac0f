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

    /**
     * Closes every transport of this peer. A connection whose close confirmed every byte but not the end
     * of stream (its FIN, or the acknowledgement of it, lost on a 25 %-loss path after the peer had
     * gone) is reported on standard error and not thrown: each transfer was already verified byte for
     * byte at its receiver, and a study must not end over it. Any unacknowledged byte is still thrown.
     */
    @Override
    public void close() {
        try {
            transports.close();
        } catch (io.ferry.transport.DataLossException e) {
            if (e.losses().stream().anyMatch(loss -> loss.unacknowledgedBytes() > 0)) {
                throw e;
            }
            System.err.printf("  teardown: %d connection(s) of %s closed with every byte acknowledged but the end of stream unconfirmed: %s%n",
                    e.losses().size(), host.name(), e.getMessage());
        }
    }
}
