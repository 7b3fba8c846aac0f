package io.ferry.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TransportsTest {

    private static final ChannelHandler NOOP = new ChannelHandlerAdapter() { };

    @Test
    void unknownSchemeListsInstalledSchemes() {
        try (Transports ferry = Transports.of(List.of(new RecordingProvider("tcp"), new RecordingProvider("utp", "ledbat")))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ferry.connect("sctp://h:1", NOOP));
            assertEquals("no transport is installed for scheme 'sctp'; installed: ledbat, tcp, utp", e.getMessage());
        }
    }

    @Test
    void noTransportInstalledSaysWhatToAdd() {
        try (Transports ferry = Transports.create()) {
            assertTrue(ferry.schemes().isEmpty(), "the API module alone installs no transport");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ferry.connect("tcp://h:1", NOOP));
            assertTrue(e.getMessage().contains("none (add a Ferry transport jar"), e.getMessage());
        }
    }

    @Test
    void aliasesShareOneTransportInstance() {
        RecordingProvider utp = new RecordingProvider("utp", "ledbat");
        try (Transports ferry = Transports.of(List.of(utp))) {
            assertSame(ferry.transport("utp"), ferry.transport("LEDBAT"));
            assertEquals(1, utp.created.size());
            assertEquals(List.of("utp"), ferry.transportNames());
        }
        assertTrue(utp.created.get(0).closed, "closing Transports closes the transports it created");
    }

    @Test
    void passesResolvedAddressAndOptionsToTheTransport() {
        RecordingProvider tcp = new RecordingProvider("tcp");
        try (Transports ferry = Transports.of(List.of(tcp))) {
            ChannelOptions options = ChannelOptions.builder().set(FerryChannelOption.PACKET_SIZE, 1200).build();
            ferry.connect("tcp://127.0.0.1:4242", NOOP, options);
            RecordingTransport t = tcp.created.get(0);
            assertEquals(new InetSocketAddress("127.0.0.1", 4242), t.lastAddress);
            assertFalse(t.lastAddress.isUnresolved());
            assertEquals(Optional.of(1200), t.lastOptions.get(FerryChannelOption.PACKET_SIZE));
            assertEquals(Optional.of(Transports.DEFAULT_WRITE_BUFFER_WATER_MARK), t.lastOptions.get(ChannelOption.WRITE_BUFFER_WATER_MARK),
                    "Ferry's default water mark is added");
            WriteBufferWaterMark own = new WriteBufferWaterMark(8, 16);
            ferry.connect("tcp://127.0.0.1:4242", NOOP, options.toBuilder().set(ChannelOption.WRITE_BUFFER_WATER_MARK, own).build());
            assertEquals(Optional.of(own), t.lastOptions.get(ChannelOption.WRITE_BUFFER_WATER_MARK), "but never replaces the user's");
        }
    }

    @Test
    void unresolvableHostReachesTheTransportUnresolved() {
        RecordingProvider tcp = new RecordingProvider("tcp");
        try (Transports ferry = Transports.of(List.of(tcp))) {
            ferry.connect("tcp://no-such-host.invalid:1", NOOP);
            InetSocketAddress address = tcp.created.get(0).lastAddress;
            assertTrue(address.isUnresolved(), "the transport reports the resolution failure on the connect future");
            assertEquals("no-such-host.invalid", address.getHostString());
        }
    }

    @Test
    void listenOnUnresolvableHostNamesIt() {
        try (Transports ferry = Transports.of(List.of(new RecordingProvider("tcp")))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ferry.listen("tcp://no-such-host.invalid:0", NOOP));
            assertTrue(e.getMessage().contains("unknown host 'no-such-host.invalid'"), e.getMessage());
        }
    }

    @Test
    void twoTransportsClaimingOneSchemeIsAnError() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Transports.of(List.of(new RecordingProvider("tcp"), new RecordingProvider("tcp"))));
        assertTrue(e.getMessage().contains("'tcp'"));
    }

    @Test
    void closedInstanceRefusesWork() {
        Transports ferry = Transports.of(List.of(new RecordingProvider("tcp")));
        ferry.close();
        ferry.close(); // idempotent
        assertThrows(IllegalStateException.class, () -> ferry.transport("tcp"));
    }

    @Test
    void aLayerCarriesTheChannelsWhoseOptionsAskForItOverTheSchemesTransport() {
        RecordingProvider tcp = new RecordingProvider("tcp");
        RecordingLayer striping = new RecordingLayer();
        List<String> closeOrder = new ArrayList<>();
        tcp.closeOrder = closeOrder;
        striping.closeOrder = closeOrder;
        try (Transports ferry = Transports.of(List.of(tcp), List.of(striping))) {
            assertEquals(List.of("tcp"), ferry.transportNames(), "a layer is no transport of its own");
            assertEquals(Set.of("tcp"), ferry.schemes());
            ferry.connect("tcp://127.0.0.1:4242", NOOP);
            assertTrue(striping.created.isEmpty(), "without the option the scheme's transport carries it");
            ferry.connect("tcp://127.0.0.1:4242?streams=3", NOOP);
            ferry.listen("tcp://127.0.0.1:0", NOOP, ChannelOptions.builder().set(FerryChannelOption.STREAMS, 2).build());
            assertEquals(1, striping.created.size(), "one layer instance per carrier");
            RecordingTransport layer = striping.created.get(0);
            assertSame(tcp.created.get(0), striping.carriers.get(0));
            assertEquals(Optional.of(2), layer.lastOptions.get(FerryChannelOption.STREAMS));
        }
        assertEquals(List.of("striped", "tcp"), closeOrder, "the layer closes before its carrier");
    }

    @Test
    void aLayerOptionWithoutItsLayerInstalledSaysWhatToAdd() {
        try (Transports ferry = Transports.of(List.of(new RecordingProvider("tcp")))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ferry.connect("tcp://127.0.0.1:1?streams=4", NOOP));
            assertTrue(e.getMessage().contains("io.ferry:transport-striped"), e.getMessage());
        }
    }

    @Test
    void channelsNotMadeByFerryAreRejectedByFerryChannels() {
        Channel plain = new io.netty.channel.embedded.EmbeddedChannel();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FerryChannels.statistics(plain));
        assertTrue(e.getMessage().contains("not created by a Ferry transport"));
        plain.close();
    }

    /** A layer chosen by {@link FerryChannelOption#STREAMS}, as transport-striped registers one. */
    private static final class RecordingLayer implements LayerProvider {
        final List<RecordingTransport> created = new ArrayList<>();
        final List<Transport> carriers = new ArrayList<>();
        List<String> closeOrder;

        @Override
        public String name() {
            return "striped";
        }

        @Override
        public ChannelOption<?> option() {
            return FerryChannelOption.STREAMS;
        }

        @Override
        public Transport createOver(Transport carrier) {
            RecordingTransport t = new RecordingTransport(name());
            t.closeOrder = closeOrder;
            created.add(t);
            carriers.add(carrier);
            return t;
        }
    }

    private static final class RecordingProvider implements TransportProvider {
        private final List<String> schemes;
        final List<RecordingTransport> created = new ArrayList<>();
        List<String> closeOrder;

        RecordingProvider(String... schemes) {
            this.schemes = List.of(schemes);
        }

        @Override
        public String name() {
            return schemes.get(0);
        }

        @Override
        public List<String> schemes() {
            return schemes;
        }

        @Override
        public Transport create() {
            RecordingTransport t = new RecordingTransport(name());
            t.closeOrder = closeOrder;
            created.add(t);
            return t;
        }
    }

    private static final class RecordingTransport implements Transport {
        private final String name;
        List<String> closeOrder;
        InetSocketAddress lastAddress;
        ChannelOptions lastOptions;
        boolean closed;

        RecordingTransport(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Set<ChannelOption<?>> supportedOptions() {
            return Set.of(FerryChannelOption.PACKET_SIZE, FerryChannelOption.STREAMS, ChannelOption.WRITE_BUFFER_WATER_MARK);
        }

        @Override
        public ChannelFuture connect(InetSocketAddress remote, ChannelHandler handler, ChannelOptions options) {
            lastAddress = remote;
            lastOptions = options;
            return null;
        }

        @Override
        public ChannelFuture listen(InetSocketAddress local, ChannelHandler childHandler, ChannelOptions options) {
            lastAddress = local;
            lastOptions = options;
            return null;
        }

        @Override
        public TransportStatistics statistics(Channel channel) {
            return TransportStatistics.builder(name, "test").build();
        }

        @Override
        public ChannelFuture abort(Channel channel) {
            return channel.close();
        }

        @Override
        public void close() {
            closed = true;
            if (closeOrder != null) {
                closeOrder.add(name);
            }
        }
    }
}
