package io.ferry.transport.ledbat.channel;

import io.ferry.transport.ledbat.core.UtpConfig;
import io.ferry.transport.spi.InterfaceMtu;

import java.net.InetSocketAddress;
import java.util.OptionalInt;
import java.util.function.Function;

/**
 * Keeps a connection's datagrams whole on the wire: {@code PACKET_SIZE} is an upper bound, and a
 * connection whose route leaves through an interface with a smaller MTU sends packets of at most that
 * MTU minus the IP and UDP headers. An IP fragment lost loses the whole datagram, so under 25 % loss
 * per IP packet a 10 kB datagram in 7 fragments arrives 13 % of the time and a 64 kB one in 44
 * fragments practically never (TCP clamps its segments to the MTU the same way). The MTU is that of
 * the first hop (the interface the kernel routes the peer through); loopback peers keep the size
 * asked for.
 */
final class PathMtu {
    private PathMtu() {
    }

    /** The protocol settings for a connection with {@code remote}, its packet size fitted to the route's MTU. */
    static UtpConfig fit(UtpConfig config, InetSocketAddress remote) {
        return fit(config, remote, PathMtu::interfaceMtu);
    }

    static UtpConfig fit(UtpConfig config, InetSocketAddress remote, Function<InetSocketAddress, OptionalInt> mtuLookup) {
        OptionalInt payload = InterfaceMtu.largestUdpPayload(remote, mtuLookup);
        if (payload.isEmpty()) {
            return config;
        }
        int largest = payload.getAsInt();
        if (largest >= config.packetSize() || largest < UtpConfig.MIN_PACKET_SIZE) {
            return config;
        }
        return config.toBuilder().packetSize(largest).build();
    }

    /** The MTU of the interface the kernel would send to {@code remote} through, if it can be told. */
    static OptionalInt interfaceMtu(InetSocketAddress remote) {
        return InterfaceMtu.towards(remote);
    }
}
