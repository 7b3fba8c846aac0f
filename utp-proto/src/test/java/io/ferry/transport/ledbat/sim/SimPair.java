package io.ferry.transport.ledbat.sim;

import io.ferry.transport.ledbat.core.UtpConfig;

import java.util.Random;
import java.util.function.BooleanSupplier;

/**
 * Two {@link SimPeer}s joined by two {@link Link}s: {@code client} initiates, {@code server} accepts.
 * Everything random derives from one seed, so a run is reproducible from it. The server's clock is
 * offset from the client's by a random amount, and the simulation starts shortly before the 32-bit
 * microsecond timestamp wraps.
 */
public final class SimPair {
    /** Simulation start: close to a wrap of the 32-bit microsecond clock (2^32 us ~ 4295 s). */
    public static final long START_NANOS = 4_294_000_000_000L;

    public final EventQueue events = new EventQueue(START_NANOS);
    public final Random random;
    public final SimPeer client;
    public final SimPeer server;
    public final Link clientToServer;
    public final Link serverToClient;
    private final UtpConfig clientConfig;
    private final UtpConfig serverConfig;
    private int clientInitialSeq = 1;
    private int serverInitialSeq;

    public SimPair(long seed, LinkParams up, LinkParams down, UtpConfig clientConfig, UtpConfig serverConfig) {
        this.random = new Random(seed);
        this.clientConfig = clientConfig;
        this.serverConfig = serverConfig;
        this.serverInitialSeq = random.nextInt(65536);
        long skew = (random.nextLong() >>> 1) % 3_000_000_000_000L;
        client = new SimPeer("client", events, 0);
        server = new SimPeer("server", events, skew);
        clientToServer = new Link(events, new Random(random.nextLong()), up,
                p -> server.receive(p, this.serverConfig, this.serverInitialSeq));
        serverToClient = new Link(events, new Random(random.nextLong()), down, client::receive);
        client.attach(clientToServer::send);
        server.attach(serverToClient::send);
    }

    public SimPair(long seed, LinkParams both, UtpConfig config) {
        this(seed, both, both, config, config);
    }

    /** Sets the first sequence number of each side (before {@link #connect()}). */
    public SimPair initialSeqs(int client, int server) {
        this.clientInitialSeq = client;
        this.serverInitialSeq = server;
        return this;
    }

    /** Starts the handshake. */
    public SimPair connect() {
        client.connect(clientConfig, random.nextInt(65536), clientInitialSeq);
        return this;
    }

    /**
     * The simulator suites' teardown: aborts each side that is still open, then runs the events out so
     * that every packet still on a link arrives and is released; the caller then checks its allocator.
     */
    public void abortAndDrain() {
        if (client.connection() != null && !client.isClosed()) {
            client.abort();
        }
        if (server.connection() != null && !server.isClosed()) {
            server.abort();
        }
        events.runUntil(() -> false, Long.MAX_VALUE);
    }

    /** Runs until {@code done} or {@code maxVirtualNanos} of virtual time passed. */
    public boolean run(BooleanSupplier done, long maxVirtualNanos) {
        return events.runUntil(done, events.now() + maxVirtualNanos);
    }
}
