package io.ferry.transport.ledbat.channel;

import io.ferry.transport.ledbat.core.UtpConfig;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PathMtuTest {
    private static final UtpConfig BIG = UtpConfig.builder().packetSize(64_000).build();

    @Test
    void aPacketLargerThanTheRoutesMtuShrinksToFitIt() {
        assertEquals(1472, PathMtu.fit(BIG, new InetSocketAddress("10.77.0.2", 9000), r -> OptionalInt.of(1500)).packetSize());
        assertEquals(1232, PathMtu.fit(BIG, new InetSocketAddress("fd00::2", 9000), r -> OptionalInt.of(1280)).packetSize());
    }

    @Test
    void otherwiseTheSizeAskedForStays() {
        UtpConfig defaults = UtpConfig.defaults();
        assertSame(defaults, PathMtu.fit(defaults, new InetSocketAddress("10.77.0.2", 9000), r -> OptionalInt.of(9000)));
        assertSame(BIG, PathMtu.fit(BIG, new InetSocketAddress("10.77.0.2", 9000), r -> OptionalInt.empty()));
        assertSame(BIG, PathMtu.fit(BIG, new InetSocketAddress("10.77.0.2", 9000), r -> OptionalInt.of(100)), "below uTP's minimum");
        assertSame(BIG, PathMtu.fit(BIG, new InetSocketAddress("127.0.0.1", 9000), r -> OptionalInt.of(1500)), "loopback is not looked up");
    }

    @Test
    void theRoutesInterfaceIsFoundThroughTheKernel() {
        OptionalInt loopback = PathMtu.interfaceMtu(new InetSocketAddress("127.0.0.1", 9));
        assertTrue(loopback.isPresent() && loopback.getAsInt() >= 1500, "loopback MTU: " + loopback);
    }

    @Test
    void routeLookupsAreCachedPerAddressAndBudgetedPerSecond() throws Exception {
        int[] calls = {0};
        long[] now = {0};
        PathMtu.RouteMtuCache cache = new PathMtu.RouteMtuCache(remote -> {
            calls[0]++;
            return OptionalInt.of(1400);
        }, () -> now[0]);
        InetSocketAddress peer = new InetSocketAddress(java.net.InetAddress.getByName("192.0.2.7"), 6881);
        assertEquals(OptionalInt.of(1400), cache.mtu(peer));
        assertEquals(OptionalInt.of(1400), cache.mtu(new InetSocketAddress(peer.getAddress(), 6882)), "another port of a known address");
        assertEquals(1, calls[0], "one lookup per address");
        // a flood from many addresses: at most the budget of lookups per second, the rest get a safe size
        for (int i = 0; i < 1000; i++) {
            OptionalInt mtu = cache.mtu(new InetSocketAddress(java.net.InetAddress.getByAddress(
                    new byte[]{(byte) 198, 51, (byte) (i >> 8), (byte) i}), 1000));
            assertTrue(mtu.isEmpty() || mtu.getAsInt() >= 68, "a usable MTU or none: " + mtu);
        }
        assertEquals(PathMtu.RouteMtuCache.LOOKUPS_PER_SECOND, calls[0], "lookups within the budget");
        now[0] += 1_000_000_000L;
        cache.mtu(new InetSocketAddress(java.net.InetAddress.getByName("203.0.113.9"), 1));
        assertEquals(PathMtu.RouteMtuCache.LOOKUPS_PER_SECOND + 1, calls[0], "the budget renews each second");
        now[0] += (PathMtu.RouteMtuCache.TTL_SECONDS + 1) * 1_000_000_000L;
        cache.mtu(peer);
        assertEquals(PathMtu.RouteMtuCache.LOOKUPS_PER_SECOND + 2, calls[0], "an entry is looked up again after its time");
    }
}
