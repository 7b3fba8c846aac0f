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
}
