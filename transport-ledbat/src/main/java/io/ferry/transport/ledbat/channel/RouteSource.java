package io.ferry.transport.ledbat.channel;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The source address the kernel picks for datagrams to a peer from a socket bound to the wildcard
 * address, remembered per peer address (at most {@value #CAPACITY}, least recently used first out).
 * A wildcard listener answers a peer that dialed another of its addresses from a socket bound to that
 * address instead; a peer's connected socket takes datagrams from no other.
 */
final class RouteSource {
    static final int CAPACITY = 1024;

    private final Map<InetAddress, InetAddress> known = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<InetAddress, InetAddress> eldest) {
            return size() > CAPACITY;
        }
    };

    /** Whether a wildcard socket's reply to {@code peer} would leave from {@code dialed}; true if the kernel cannot tell. */
    synchronized boolean leavesFrom(InetAddress dialed, InetAddress peer) {
        InetAddress source = known.computeIfAbsent(peer, RouteSource::lookup);
        return source == null || source.equals(dialed);
    }

    /** Asks the kernel's routing table; no packet is sent. */
    static InetAddress lookup(InetAddress peer) {
        try (DatagramChannel probe = DatagramChannel.open()) {
            probe.connect(new InetSocketAddress(peer, 9));
            return ((InetSocketAddress) probe.getLocalAddress()).getAddress();
        } catch (IOException | RuntimeException unknown) {
            return null;
        }
    }
}
