package io.ferry.transport.spi;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.nio.channels.DatagramChannel;
import java.util.OptionalInt;
import java.util.function.Function;

/**
 * The MTU of the first hop towards a peer, for datagram transports that keep their packets whole on
 * the wire: an IP fragment lost loses the whole datagram, so under 25 % loss per IP packet a datagram
 * in two fragments arrives 56 % of the time instead of 75 % (TCP clamps its segments to the MTU the same
 * way). Hops further on with a smaller MTU are not found.
 */
public final class InterfaceMtu {
    /** IPv4 and UDP headers. */
    public static final int IPV4_UDP_HEADERS = 20 + 8;
    /** IPv6 and UDP headers. */
    public static final int IPV6_UDP_HEADERS = 40 + 8;

    private InterfaceMtu() {
    }

    /**
     * The largest UDP payload that leaves towards {@code remote} unfragmented: the first hop's MTU less
     * the IP and UDP headers of {@code remote}'s address family; empty on loopback (no wire to fit),
     * for an unresolved address, or when the MTU cannot be told.
     */
    public static OptionalInt largestUdpPayload(InetSocketAddress remote) {
        return largestUdpPayload(remote, InterfaceMtu::towards);
    }

    /** {@link #largestUdpPayload(InetSocketAddress)} with the MTU looked up by {@code mtuLookup} (for tests). */
    public static OptionalInt largestUdpPayload(InetSocketAddress remote, Function<InetSocketAddress, OptionalInt> mtuLookup) {
        InetAddress address = remote.getAddress();
        if (address == null || address.isLoopbackAddress()) {
            return OptionalInt.empty();
        }
        OptionalInt mtu = mtuLookup.apply(remote);
        if (mtu.isEmpty()) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(mtu.getAsInt() - (address instanceof Inet6Address ? IPV6_UDP_HEADERS : IPV4_UDP_HEADERS));
    }

    /**
     * The MTU of the interface the kernel would send to {@code remote} through, if it can be told; empty
     * for an unresolved address or when the interface cannot be found. Nothing is sent.
     */
    public static OptionalInt towards(InetSocketAddress remote) {
        if (remote.getAddress() == null) {
            return OptionalInt.empty();
        }
        try (DatagramChannel probe = DatagramChannel.open()) {
            probe.connect(remote); // no packet is sent: this only asks the kernel for the route's source address
            InetAddress local = ((InetSocketAddress) probe.getLocalAddress()).getAddress();
            NetworkInterface nif = NetworkInterface.getByInetAddress(local);
            if (nif == null) {
                return OptionalInt.empty();
            }
            int mtu = nif.getMTU();
            return mtu > 0 ? OptionalInt.of(mtu) : OptionalInt.empty();
        } catch (IOException | RuntimeException unknown) {
            return OptionalInt.empty();
        }
    }
}
