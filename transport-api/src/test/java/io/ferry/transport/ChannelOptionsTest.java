package io.ferry.transport;

import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ChannelOptionsTest {

    @Test
    void keepsTypedValuesInOrder() {
        ChannelOptions options = ChannelOptions.builder()
                .set(FerryChannelOption.SEND_BUFFER_SIZE, 1 << 20)
                .set(ChannelOption.TCP_NODELAY, true)
                .build();
        assertEquals(1 << 20, options.get(FerryChannelOption.SEND_BUFFER_SIZE).orElseThrow());
        assertEquals(true, options.get(ChannelOption.TCP_NODELAY).orElseThrow());
        assertEquals("{ferry.SEND_BUFFER_SIZE=1048576, TCP_NODELAY=true}", options.toString());
    }

    @Test
    void emptyBuilderGivesTheSharedEmptyInstance() {
        assertSame(ChannelOptions.empty(), ChannelOptions.builder().build());
    }

    @Test
    void rejectsInvalidValuesNamingTheOption() {
        assertMessage("SEND_BUFFER_SIZE must be a positive", () -> ChannelOptions.builder().set(FerryChannelOption.SEND_BUFFER_SIZE, 0));
        assertMessage("PACKET_SIZE must be between 64 and 65507", () -> ChannelOptions.builder().set(FerryChannelOption.PACKET_SIZE, 70_000));
        assertMessage("CONGESTION_CONTROL must be a non-empty", () -> ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, " "));
        assertMessage("PACING_RATE must be a positive", () -> ChannelOptions.builder().set(FerryChannelOption.PACING_RATE, -5L));
        assertMessage("CONNECT_TIMEOUT must be positive", () -> ChannelOptions.builder().set(FerryChannelOption.CONNECT_TIMEOUT, Duration.ZERO));
        assertMessage("needs a value", () -> ChannelOptions.builder().set(FerryChannelOption.CONNECT_TIMEOUT, null));
    }

    @Test
    void unsupportedOptionNamesTransportOptionAndAlternatives() {
        ChannelOptions options = ChannelOptions.builder().set(FerryChannelOption.PACING_RATE, 1000L).build();
        UnsupportedOptionException e = assertThrows(UnsupportedOptionException.class,
                () -> options.requireSupported("demo", Set.of(FerryChannelOption.SEND_BUFFER_SIZE)));
        assertTrue(e.getMessage().contains("'demo'"));
        assertTrue(e.getMessage().contains("ferry.PACING_RATE"));
        assertTrue(e.getMessage().contains("ferry.SEND_BUFFER_SIZE"));
    }

    @Test
    void findsOptionsByShortNameIgnoringCase() {
        assertSame(FerryChannelOption.PACKET_SIZE, FerryChannelOption.byName("packet-size").orElseThrow());
        assertTrue(FerryChannelOption.byName("nonsense").isEmpty());
        assertSame(FerryChannelOption.LINGER, FerryChannelOption.byName("linger").orElseThrow());
        assertEquals(8, FerryChannelOption.all().size());
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), "message '" + e.getMessage() + "' contains '" + expected + "'");
    }
}
