package io.ferry.transport.ledbat.channel;

import io.ferry.transport.ledbat.core.UtpConfig;
import io.ferry.transport.spi.InterfaceMtu;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.function.LongSupplier;

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

    private static final RouteMtuCache ROUTES = new RouteMtuCache(PathMtu::interfaceMtu, System::nanoTime);

    /**
     * The protocol settings for a connection with {@code remote}, its packet size fitted to the route's
     * MTU. Lookups (a socket opened and connected) are cached per peer address and budgeted, so a flood
     * of SYNs from many addresses cannot make the event loop spend its time on them.
     */
    static UtpConfig fit(UtpConfig config, InetSocketAddress remote) {
        return fit(config, remote, ROUTES::mtu);
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

    /**
     * Route MTUs per peer address: at most {@value #CAPACITY} remembered for {@value #TTL_SECONDS} s, and
     * at most {@value #LOOKUPS_PER_SECOND} new lookups a second; beyond that budget a connection gets the
     * smallest MTU of the machine's interfaces, which never fragments either.
     */
    static final class RouteMtuCache {
        static final int CAPACITY = 4096;
        static final int TTL_SECONDS = 60;
        static final int LOOKUPS_PER_SECOND = 100;
        private static final long SECOND = 1_000_000_000L;

        private final Function<InetSocketAddress, OptionalInt> lookup;
        private final LongSupplier clock;
        private final Map<InetAddress, long[]> entries = new LinkedHashMap<>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<InetAddress, long[]> eldest) {
                return size() > CAPACITY;
            }
        };
        private long budgetStart;
        private int budgetUsed;
        private long smallestMtu = -2;
        private long smallestMtuAt;
        private long lookups;

        RouteMtuCache(Function<InetSocketAddress, OptionalInt> lookup, LongSupplier clock) {
            this.lookup = lookup;
            this.clock = clock;
        }

        synchronized OptionalInt mtu(InetSocketAddress remote) {
            long now = clock.getAsLong();
            long[] entry = entries.get(remote.getAddress());
            if (entry != null && now < entry[1]) {
                return entry[0] < 0 ? OptionalInt.empty() : OptionalInt.of((int) entry[0]);
            }
            if (now - budgetStart >= SECOND) {
                budgetStart = now;
                budgetUsed = 0;
            }
            if (budgetUsed >= LOOKUPS_PER_SECOND) {
                return smallestInterfaceMtu(now);
            }
            budgetUsed++;
            lookups++;
            OptionalInt mtu = lookup.apply(remote);
            entries.put(remote.getAddress(), new long[]{mtu.isPresent() ? mtu.getAsInt() : -1, now + TTL_SECONDS * SECOND});
            return mtu;
        }

        /** Lookups made (for tests). */
        synchronized long lookups() {
            return lookups;
        }

        private OptionalInt smallestInterfaceMtu(long now) {
            if (smallestMtu == -2 || now - smallestMtuAt >= TTL_SECONDS * SECOND) {
                smallestMtu = -1;
                smallestMtuAt = now;
                try {
                    for (NetworkInterface nif : java.util.Collections.list(NetworkInterface.getNetworkInterfaces())) {
                        if (nif.isUp() && !nif.isLoopback() && nif.getMTU() > 0
                                && (smallestMtu < 0 || nif.getMTU() < smallestMtu)) {
                            smallestMtu = nif.getMTU();
                        }
                    }
                } catch (SocketException unknown) {
                    smallestMtu = -1;
                }
            }
            return smallestMtu < 0 ? OptionalInt.empty() : OptionalInt.of((int) smallestMtu);
        }
    }
}
