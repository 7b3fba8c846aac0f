package io.ferry.cli.options;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.Transports;
import io.ferry.transport.ledbat.channel.UtpChannelOption;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --opt name=value} resolved against what each transport honours. */
class OptionValuesTest {

    private final Transports ferry = Transports.create();

    @AfterEach
    void close() {
        ferry.close();
    }

    @Test
    void sharedOptionsTakeSizesAndDurations() {
        ChannelOptions options = OptionValues.parse(ferry.transport("tcp"), List.of("send-buffer-size=4M", "CONNECT_TIMEOUT=2s"));
        assertEquals(4 << 20, options.get(FerryChannelOption.SEND_BUFFER_SIZE).orElseThrow());
        assertEquals(Duration.ofSeconds(2), options.get(FerryChannelOption.CONNECT_TIMEOUT).orElseThrow());
    }

    @Test
    void transportSpecificOptionsAreFoundByTheirShortName() {
        ChannelOptions options = OptionValues.parse(ferry.transport("utp"), List.of("target-delay=50ms", "max_retransmits=8"));
        assertEquals(Duration.ofMillis(50), options.get(UtpChannelOption.TARGET_DELAY).orElseThrow());
        assertEquals(8, options.get(UtpChannelOption.MAX_RETRANSMITS).orElseThrow());
        ChannelOptions buffers = OptionValues.parse(ferry.transport("utp"), List.of("receive-buffer-max=64M", "send_buffer_max=16M"));
        assertEquals(64 << 20, buffers.get(UtpChannelOption.RECEIVE_BUFFER_MAX).orElseThrow());
        assertEquals(16 << 20, buffers.get(UtpChannelOption.SEND_BUFFER_MAX).orElseThrow());
    }

    @Test
    void nettyOptionsTheTransportHonoursWork() {
        ChannelOptions options = OptionValues.parse(ferry.transport("tcp"), List.of("tcp-nodelay=true"));
        assertEquals(true, options.get(ChannelOption.TCP_NODELAY).orElseThrow());
    }

    @Test
    void anUnknownNameListsWhatTheTransportHas() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OptionValues.parse(ferry.transport("utp"), List.of("tcp-nodelay=true")));
        assertTrue(e.getMessage().contains("transport 'utp' has no option 'tcp-nodelay'; it has: "), e.getMessage());
        assertTrue(e.getMessage().contains("target-delay") && e.getMessage().contains("send-buffer-size"), e.getMessage());
    }

    @Test
    void badValuesAndBadSyntaxAreNamed() {
        assertThrows(IllegalArgumentException.class, () -> OptionValues.parse(ferry.transport("tcp"), List.of("send-buffer-size")),
                "no '='");
        IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
                () -> OptionValues.parse(ferry.transport("tcp"), List.of("send-buffer-size=lots")));
        assertTrue(size.getMessage().contains("'lots' is not a size"), size.getMessage());
        IllegalArgumentException range = assertThrows(IllegalArgumentException.class,
                () -> OptionValues.parse(ferry.transport("tcp"), List.of("send-buffer-size=0")));
        assertTrue(range.getMessage().contains("SEND_BUFFER_SIZE must be a positive number"), range.getMessage());
    }

    @Test
    void optionsWithoutATextFormAreRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OptionValues.parse(ferry.transport("tcp"), List.of("write-buffer-water-mark=1")));
        assertTrue(e.getMessage().contains("cannot be set from the command line"), e.getMessage());
    }

    @Test
    void durationsComeInTheUsualForms() {
        assertEquals(Duration.ofMillis(250), OptionValues.duration("250ms"));
        assertEquals(Duration.ofMillis(1500), OptionValues.duration("1.5s"));
        assertEquals(Duration.ofMinutes(2), OptionValues.duration("2m"));
        assertEquals(Duration.ofMillis(100), OptionValues.duration("PT0.1S"));
    }
}
