package io.ferry.bench.accuracy;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.emulator.UdpRelay;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * How a client reaches a UDP server through the emulated link: directly (the kernel routes through
 * the TUN emulator) or through a {@link UdpRelay} made for that server.
 */
public interface Route extends AutoCloseable {

    /** The address the client sends to in order to reach {@code server} through the link. */
    InetSocketAddress target(InetSocketAddress server) throws IOException;

    /** Bytes the emulator counts per datagram beyond its payload: 28 (IPv4 + UDP) through TUN, 0 through the relay. */
    int overheadBytes();

    /** Whether TCP can use this route as well. */
    boolean carriesTcp();

    @Override
    void close() throws InterruptedException;

    /** The kernel routes the client's packets through the TUN emulator. */
    static Route kernel() {
        return new Route() {
            @Override
            public InetSocketAddress target(InetSocketAddress server) {
                return server;
            }

            @Override
            public int overheadBytes() {
                return 28;
            }

            @Override
            public boolean carriesTcp() {
                return true;
            }

            @Override
            public void close() {
            }
        };
    }

    /** Each server gets its own loopback {@link UdpRelay} applying {@code model} in both directions (seeds differ). */
    static Route relay(LinkModel model) {
        List<UdpRelay> relays = new ArrayList<>();
        return new Route() {
            @Override
            public synchronized InetSocketAddress target(InetSocketAddress server) throws IOException {
                UdpRelay relay = new UdpRelay(server, model, model.withSeed(model.seed() + 1));
                relays.add(relay);
                return relay.address();
            }

            @Override
            public int overheadBytes() {
                return 0;
            }

            @Override
            public boolean carriesTcp() {
                return false;
            }

            @Override
            public synchronized void close() throws InterruptedException {
                for (UdpRelay r : relays) {
                    r.close();
                }
            }
        };
    }
}
