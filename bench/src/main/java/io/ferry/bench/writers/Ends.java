package io.ferry.bench.writers;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.netns.Host;
import io.ferry.bench.netns.Topology;
import io.ferry.bench.transfer.Peer;

import java.time.Duration;

/** The two ends of a writer measurement: one peer on loopback, or a client and a server across the emulated link. */
final class Ends implements AutoCloseable {

    private final Topology topology;
    private final Peer client;
    private final Peer server;
    private final String serverAddress;
    private final String description;

    private Ends(Topology topology, Peer client, Peer server, String serverAddress, String description) {
        this.topology = topology;
        this.client = client;
        this.server = server;
        this.serverAddress = serverAddress;
        this.description = description;
    }

    static Ends loopback() throws Exception {
        Peer peer = Peer.on(Host.loopback());
        return new Ends(null, peer, peer, "127.0.0.1", "loopback");
    }

    /** {@code mbit} Mbit/s each way, {@code rttMs} round trip, a queue of one bandwidth-delay product. */
    static Ends emulated(long mbit, long rttMs) throws Exception {
        long bits = mbit * 1_000_000;
        LinkModel link = LinkModel.delay(Duration.ofMillis(rttMs / 2))
                .withRate(bits, LinkModel.queueFor(bits, Duration.ofMillis(rttMs)));
        Topology t = Topology.emulated(link, link.withSeed(link.seed() + 1));
        try {
            Peer client = Peer.on(t.clientHost());
            Peer server = Peer.on(t.serverHost());
            return new Ends(t, client, server, t.serverHost().address(),
                    "emulated link: " + mbit + " Mbit/s, " + rttMs + " ms RTT, queue of one BDP");
        } catch (Exception e) {
            t.close();
            throw e;
        }
    }

    Peer client() {
        return client;
    }

    Peer server() {
        return server;
    }

    /** The emulated link's topology, or null on loopback. */
    Topology topology() {
        return topology;
    }

    String serverAddress() {
        return serverAddress;
    }

    String description() {
        return description;
    }

    @Override
    public void close() {
        try {
            client.close();
        } finally {
            try {
                if (server != client) {
                    server.close();
                }
            } finally {
                if (topology != null) {
                    topology.close();
                }
            }
        }
    }
}
