package io.ferry.bench.scenario;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.emulator.TunEmulator;
import io.ferry.bench.netns.Host;
import io.ferry.bench.netns.NetworkNamespace;
import io.ferry.bench.netns.Topology;
import io.ferry.bench.transfer.Peer;

import java.util.Optional;

/** A client peer and a server peer, on loopback or in two namespaces behind the TUN emulator; closes both. */
public final class TestBed implements AutoCloseable {

    private final Topology topology;
    private final Peer client;
    private final Peer server;

    private TestBed(Topology topology, Peer client, Peer server) {
        this.topology = topology;
        this.client = client;
        this.server = server;
    }

    public static TestBed loopback() throws Exception {
        Peer client = Peer.on(Host.loopback());
        return new TestBed(null, client, Peer.on(Host.loopback()));
    }

    /** The same model both ways (the reverse direction with another seed). */
    public static TestBed emulated(LinkModel model) throws Exception {
        Topology t = Topology.emulated(model, model.withSeed(model.seed() + 1));
        try {
            Peer client = Peer.on(t.clientHost());
            try {
                return new TestBed(t, client, Peer.on(t.serverHost()));
            } catch (Exception e) {
                client.close();
                throw e;
            }
        } catch (Exception e) {
            t.close();
            throw e;
        }
    }

    public Peer client() {
        return client;
    }

    public Peer server() {
        return server;
    }

    /** Whether the two peers are in namespaces behind the emulator (not on loopback). */
    public boolean isEmulated() {
        return topology != null;
    }

    /** The address clients reach the server peer at. */
    public String serverAddress() {
        return server.host().address();
    }

    /** The client's namespace (for child processes); only for an emulated bed. */
    public NetworkNamespace clientNamespace() {
        return topology.client();
    }

    /** The server's namespace; only for an emulated bed. */
    public NetworkNamespace serverNamespace() {
        return topology.server();
    }

    public Optional<TunEmulator> emulator() {
        return topology == null ? Optional.empty() : topology.emulator();
    }

    @Override
    public void close() {
        try {
            client.close();
        } finally {
            try {
                server.close();
            } finally {
                if (topology != null) {
                    topology.close();
                }
            }
        }
    }
}
