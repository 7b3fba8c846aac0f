package io.ferry.transport.udt;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** UDT's MSS is fitted to the first hop's MTU, so no datagram is fragmented. */
class UdtMssTest {
    private static final ChannelOptions PACKET_1500 = ChannelOptions.builder().set(FerryChannelOption.PACKET_SIZE, 1500).build();
    private static final InetSocketAddress V4 = new InetSocketAddress("10.77.0.2", 9000);

    @Test
    void anMssAboveTheRoutesMtuIsLoweredToIt() {
        // PACKET_SIZE 1500 asks for 1528-byte datagrams: two fragments on Ethernet
        assertEquals(1528, UdtSettings.of(PACKET_1500).mss);
        assertEquals(1500, UdtSettings.forConnection(PACKET_1500, V4, r -> OptionalInt.of(1500)).mss);
        ChannelOptions big = ChannelOptions.builder().set(UdtChannelOption.MSS, 9000).build();
        assertEquals(1500, UdtSettings.forConnection(big, V4, r -> OptionalInt.of(1500)).mss, "an explicit MSS too");
        // over IPv6 the headers are 20 bytes longer than the 28 UDT counts
        assertEquals(1260, UdtSettings.forConnection(big, new InetSocketAddress("fd00::2", 9000), r -> OptionalInt.of(1280)).mss);
    }

    @Test
    void otherwiseTheMssAskedForStays() {
        assertEquals(1528, UdtSettings.forConnection(PACKET_1500, V4, r -> OptionalInt.of(9000)).mss);
        assertEquals(1528, UdtSettings.forConnection(PACKET_1500, V4, r -> OptionalInt.empty()).mss);
        assertEquals(1528, UdtSettings.forConnection(PACKET_1500, V4, r -> OptionalInt.of(60)).mss, "below UDT's minimum");
        assertEquals(1528, UdtSettings.forConnection(PACKET_1500, new InetSocketAddress("127.0.0.1", 9000), r -> OptionalInt.of(1500)).mss,
                "loopback is not looked up");
        assertEquals(UdtSettings.DEFAULT_MSS, UdtSettings.forConnection(ChannelOptions.empty(), V4, r -> OptionalInt.of(1500)).mss);
    }
}
