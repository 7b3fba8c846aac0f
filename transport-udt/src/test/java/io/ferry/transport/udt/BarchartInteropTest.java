package io.ferry.transport.udt;

import com.barchart.udt.SocketUDT;
import com.barchart.udt.TypeUDT;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ferry's udt:// channels against barchart-udt 2.3.0, the JNI bundle of the C++ UDT4 that udt:// ran on
 * before: a barchart stream client into a Ferry listener, messages of 1 B to 64 KiB kept whole both ways
 * between message-mode channels and barchart {@link TypeUDT#DATAGRAM} sockets, and a rendezvous between
 * the two. ({@link UdtTransportTest} has the Ferry client into a barchart listener; {@link LibudtInteropTest}
 * the same cases against Debian's libudt.) barchart is the reference peer here, never Ferry's runtime.
 */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BarchartInteropTest {

    private static final int[] MESSAGE_SIZES = {1, 1456, 1457, 65_536, 300, 40_000};
    private static final ChannelOptions RAW = ChannelOptions.builder().set(UdtChannelOption.RAW_STREAM, true).build();
    private static final ChannelOptions MESSAGES = ChannelOptions.builder().set(UdtChannelOption.MESSAGE_MODE, true).build();

    private Transports ferry;
    private final List<SocketUDT> sockets = new ArrayList<>();

    @BeforeEach
    void open() {
        ferry = Transports.create();
    }

    @AfterEach
    void close() {
        for (SocketUDT s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing the reference peer
            }
        }
        ferry.close();
    }

    @Test
    void aBarchartStreamClientWritesIntoAFerryListener() throws Exception {
        int size = 1 << 20;
        Received received = new Received(size);
        Channel listener = ferry.listen("udt://127.0.0.1:0", received, RAW).sync().channel();
        SocketUDT client = socket(TypeUDT.STREAM);
        client.connect(new InetSocketAddress("127.0.0.1", port(listener)));
        byte[] payload = random(size, 3);
        sendAll(client, payload);
        assertArrayEquals(payload, received.all.get(30, TimeUnit.SECONDS), "every byte barchart sent, in order");
        client.close();
        received.inactive.get(30, TimeUnit.SECONDS);
        assertEquals(List.of(), received.errors, "barchart's close is an orderly end of stream");
        listener.close().sync();
    }

    @Test
    void messagesFromABarchartDatagramClientComeBackWhole() throws Exception {
        java.util.concurrent.atomic.AtomicReference<Channel> accepted = new java.util.concurrent.atomic.AtomicReference<>();
        Channel listener = ferry.listen("udt://127.0.0.1:0", new io.netty.channel.ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                accepted.set(ch);
                ch.pipeline().addLast(echoing());
            }
        }, MESSAGES).sync().channel();
        SocketUDT client = socket(TypeUDT.DATAGRAM);
        client.connect(new InetSocketAddress("127.0.0.1", port(listener)));
        byte[] into = new byte[128 * 1024];
        for (int size : MESSAGE_SIZES) {
            byte[] message = random(size, size);
            assertEquals(size, client.send(message), "barchart sent the " + size + "-byte message whole");
            int n = client.receive(into);
            assertEquals(size, n, "Ferry's echo of the " + size + "-byte message is one message");
            assertArrayEquals(message, Arrays.copyOf(into, n));
        }
        // Ferry's side closes first: UDT4 closes as soon as its application does, often before it acknowledged
        // what it read, which a closing Ferry channel reports as data not known to be delivered
        accepted.get().close().sync();
        client.close();
        listener.close().sync();
    }

    @Test
    void aFerryMessageClientToABarchartDatagramServer() throws Exception {
        SocketUDT server = socket(TypeUDT.DATAGRAM);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        server.listen(1);
        CompletableFuture<List<Integer>> seen = CompletableFuture.supplyAsync(() -> echoMessages(server));
        Received echo = new Received(Integer.MAX_VALUE);
        Channel client = ferry.connect("udt://127.0.0.1:" + server.getLocalInetPort(), echo, MESSAGES).sync().channel();
        for (int size : MESSAGE_SIZES) {
            client.writeAndFlush(Unpooled.wrappedBuffer(random(size, size))).sync();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (echo.buffers.size() < MESSAGE_SIZES.length && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(MESSAGE_SIZES.length, echo.buffers.size(), "each message came back as one read");
        for (int i = 0; i < MESSAGE_SIZES.length; i++) {
            assertArrayEquals(random(MESSAGE_SIZES[i], MESSAGE_SIZES[i]), echo.buffers.get(i), "message " + i);
        }
        client.close().sync();
        List<Integer> sizes = seen.get(30, TimeUnit.SECONDS);
        assertEquals(Arrays.stream(MESSAGE_SIZES).boxed().toList(), sizes, "barchart received each message whole");
        assertEquals(List.of(), echo.errors);
    }

    @Test
    void aRendezvousBetweenFerryAndBarchart() throws Exception {
        int ours;
        int theirs;
        try (DatagramSocket a = new DatagramSocket(0, InetAddress.getLoopbackAddress());
             DatagramSocket b = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            ours = a.getLocalPort();
            theirs = b.getLocalPort();
        }
        SocketUDT other = socket(TypeUDT.STREAM);
        other.setRendezvous(true);
        other.bind(new InetSocketAddress("127.0.0.1", theirs));
        CompletableFuture<Void> met = CompletableFuture.runAsync(() -> {
            try {
                other.connect(new InetSocketAddress("127.0.0.1", ours));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        ChannelOptions rendezvous = ChannelOptions.builder().set(UdtChannelOption.RAW_STREAM, true)
                .set(UdtChannelOption.RENDEZVOUS, true)
                .set(UdtChannelOption.BIND_ADDRESS, new InetSocketAddress("127.0.0.1", ours)).build();
        Channel ch = ferry.connect("udt://127.0.0.1:" + theirs, echoing(), rendezvous).sync().channel();
        met.get(30, TimeUnit.SECONDS);
        byte[] payload = random(1 << 20, 9);
        CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
            try {
                sendAll(other, payload);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        byte[] back = new byte[payload.length];
        int n = 0;
        while (n < back.length) {
            n += other.receive(back, n, back.length);
        }
        sent.get(30, TimeUnit.SECONDS);
        assertArrayEquals(payload, back, "Ferry echoed every byte of the rendezvous connection");
        ch.close().await(10, TimeUnit.SECONDS);
    }

    private List<Integer> echoMessages(SocketUDT server) {
        List<Integer> sizes = new ArrayList<>();
        try {
            SocketUDT peer = server.accept();
            sockets.add(peer);
            byte[] into = new byte[128 * 1024];
            while (sizes.size() < MESSAGE_SIZES.length) {
                int n = peer.receive(into);
                sizes.add(n);
                peer.send(Arrays.copyOf(into, n));
            }
            return sizes;
        } catch (IOException e) {
            throw new IllegalStateException("after " + sizes, e);
        }
    }

    private SocketUDT socket(TypeUDT type) throws IOException {
        SocketUDT s = new SocketUDT(type);
        sockets.add(s);
        s.setBlocking(true);
        return s;
    }

    private static void sendAll(SocketUDT socket, byte[] payload) throws IOException {
        int n = 0;
        while (n < payload.length) {
            n += socket.send(payload, n, payload.length);
        }
    }

    private static int port(Channel listener) {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** The conformance suite's echo: writes back what it reads. */
    private static io.netty.channel.ChannelHandler echoing() {
        return io.ferry.transport.conformance.EchoHandler.INSTANCE;
    }
}
