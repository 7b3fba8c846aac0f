package io.ferry.transport.udp;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.unix.IntegerUnixChannelOption;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** UDP GSO runs through real epoll sockets on loopback: what the receiver gets, and how it was sent. */
class SegmentingSenderTest {

    /** {@code SOL_SOCKET} / {@code SO_NO_CHECK}: the kernel refuses segmented sends on such a socket. */
    private static final IntegerUnixChannelOption SO_NO_CHECK = new IntegerUnixChannelOption("SO_NO_CHECK", 1, 11);

    private static EventLoopGroup group;

    @BeforeAll
    static void epoll() {
        assumeTrue(Epoll.isAvailable() && EpollDatagramChannel.isSegmentedDatagramPacketSupported(),
                "UDP GSO needs Linux epoll with UDP_SEGMENT; skipped on this platform");
        group = new MultiThreadIoEventLoopGroup(2, EpollIoHandler.newFactory());
    }

    @AfterAll
    static void stop() {
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void runsOfEqualPacketsLeaveSegmentedAndArriveWholeAndInOrder() throws Exception {
        Receiver receiver = receiver();
        DatagramChannel socket = sender(false);
        try {
            List<byte[]> sent = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                sent.add(packet(1000, i));
            }
            sent.add(packet(300, 100)); // a shorter packet ends a run
            for (int i = 101; i < 104; i++) {
                sent.add(packet(1000, i));
            }
            SegmentingSender sender = onLoop(socket, () -> {
                SegmentingSender s = new SegmentingSender(socket, false, true);
                for (byte[] p : sent) {
                    s.add(socket.alloc().directBuffer(p.length).writeBytes(p), receiver.address);
                }
                s.drain();
                socket.flush();
                return s;
            });
            for (byte[] expected : sent) {
                assertArrayEquals(expected, receiver.next(), "each packet arrives as its own datagram, intact and in order");
            }
            // 64 packets fill the first run; the next 36 and the short one the second; the last three a third
            assertEquals(3, sender.segmentedSends());
            assertEquals(104, sender.segmentsSent());
            assertEquals(0, sender.plainSends());
            assertTrue(sender.isSegmenting());
        } finally {
            socket.close().sync();
            receiver.close();
        }
    }

    @Test
    void placesSideBySideInOneBufferLeaveAsASliceOfItRetainedOncePerRunAndAnyOtherPacketStartsTheNextRun() throws Exception {
        Receiver receiver = receiver();
        DatagramChannel socket = sender(false);
        ByteBuf slab = socket.alloc().directBuffer(10_000, 10_000);
        try {
            List<byte[]> sent = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                sent.add(packet(1000, i));
            }
            int[] offsets = {0, 1000, 2000, 3000, 4000, 6000, 7000}; // 6000 does not follow 4000
            for (int i = 0; i < offsets.length; i++) {
                slab.setBytes(offsets[i], sent.get(i));
            }
            int[] refsWhileGathering = new int[1];
            SegmentingSender sender = onLoop(socket, () -> {
                SegmentingSender s = new SegmentingSender(socket, false, true);
                for (int i = 0; i < 5; i++) {
                    s.addPart(slab, offsets[i], 1000, receiver.address);
                }
                refsWhileGathering[0] = slab.refCnt();
                s.addPart(slab, offsets[5], 1000, receiver.address); // a gap: the first run is written
                s.addPart(slab, offsets[6], 1000, receiver.address);
                s.add(buffer(socket, sent.get(7)), receiver.address); // a buffer of its own: alone, plain
                s.drain();
                socket.flush();
                return s;
            });
            for (byte[] expected : sent) {
                assertArrayEquals(expected, receiver.next(), "each packet arrives as its own datagram, intact and in order");
            }
            assertEquals(2, refsWhileGathering[0], "five places, one reference for their run");
            assertEquals(2, sender.segmentedSends());
            assertEquals(2, sender.adjacentSends(), "both runs left as slices of the slab");
            assertEquals(7, sender.segmentsSent());
            assertEquals(1, sender.plainSends());
            assertEquals(1, onLoop(socket, slab::refCnt), "every run's slice released: only the slab's own reference");
        } finally {
            slab.release();
            socket.close().sync();
            receiver.close();
        }
    }

    @Test
    void packetsToAnotherPeerOrTooLargeToPairGoOutPlainInBetween() throws Exception {
        Receiver a = receiver();
        Receiver b = receiver();
        DatagramChannel socket = sender(false);
        try {
            SegmentingSender sender = onLoop(socket, () -> {
                SegmentingSender s = new SegmentingSender(socket, false, true);
                s.add(buffer(socket, packet(1200, 1)), a.address);
                s.add(buffer(socket, packet(1200, 2)), a.address);
                s.add(buffer(socket, packet(1200, 3)), b.address); // another peer: the run to a is written
                s.add(buffer(socket, packet(40_000, 4)), b.address); // two of these would not fit one datagram
                s.add(buffer(socket, packet(1200, 5)), a.address);
                s.drain();
                socket.flush();
                return s;
            });
            assertArrayEquals(packet(1200, 1), a.next());
            assertArrayEquals(packet(1200, 2), a.next());
            assertArrayEquals(packet(1200, 5), a.next());
            assertArrayEquals(packet(1200, 3), b.next());
            assertArrayEquals(packet(40_000, 4), b.next());
            assertEquals(1, sender.segmentedSends(), "only the first two packets formed a run");
            assertEquals(3, sender.plainSends());
        } finally {
            socket.close().sync();
            a.close();
            b.close();
        }
    }

    @Test
    void aSocketWhoseSegmentedSendIsRefusedFallsBackToPlainDatagrams() throws Exception {
        Receiver receiver = receiver();
        DatagramChannel socket = sender(true); // SO_NO_CHECK: the kernel refuses UDP_SEGMENT with EINVAL
        try {
            SegmentingSender sender = onLoop(socket, () -> {
                SegmentingSender s = new SegmentingSender(socket, false, true);
                for (int i = 0; i < 4; i++) {
                    s.add(buffer(socket, packet(1000, i)), receiver.address);
                }
                s.drain();
                socket.flush();
                return s;
            });
            // the flush ran on the event loop, where the refused write's listener runs before flush returns
            assertFalse(sender.isSegmenting(), "the refusal turned segmentation off");
            onLoop(socket, () -> {
                for (int i = 10; i < 14; i++) {
                    sender.add(buffer(socket, packet(1000, i)), receiver.address);
                }
                sender.drain();
                socket.flush();
                return null;
            });
            for (int i = 10; i < 14; i++) {
                assertArrayEquals(packet(1000, i), receiver.next(), "later packets still arrive, one datagram each");
            }
            assertEquals(4, sender.plainSends());
        } finally {
            socket.close().sync();
            receiver.close();
        }
    }

    @Test
    void aRefusedPortKeepsSegmentationOnAndReachesThePipelineAsPortUnreachable() throws Exception {
        int closedPort;
        try (java.net.DatagramSocket probe = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = probe.getLocalPort();
        }
        BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        DatagramChannel socket = (DatagramChannel) new Bootstrap().group(group).channel(EpollDatagramChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        errors.add(cause);
                    }
                })
                .connect(new InetSocketAddress("127.0.0.1", closedPort)).sync().channel();
        try {
            // the first send draws ICMP port unreachable (on loopback, before the send returns); whichever call
            // comes next on the socket reports it: here the GSO send, in the same task
            SegmentingSender sender = onLoop(socket, () -> {
                SegmentingSender s = new SegmentingSender(socket, true, true);
                s.add(buffer(socket, packet(1000, 0)), socket.remoteAddress());
                s.drain();
                socket.flush();
                for (int i = 1; i < 5; i++) {
                    s.add(buffer(socket, packet(1000, i)), socket.remoteAddress());
                }
                s.drain();
                socket.flush();
                return s;
            });
            Throwable refused = errors.poll(10, TimeUnit.SECONDS);
            assertNotNull(refused, "the refusal reached the pipeline");
            assertTrue(SendErrors.isPortUnreachable(refused), "a refused port: " + refused);
            assertTrue(sender.isSegmenting(), "a refused port is the peer's fault, not segmentation's");
        } finally {
            socket.close().sync();
        }
    }

    // ------------------------------------------------------------------ helpers

    private static byte[] packet(int size, int tag) {
        byte[] p = new byte[size];
        for (int i = 0; i < size; i++) {
            p[i] = (byte) (tag * 31 + i);
        }
        return p;
    }

    private static ByteBuf buffer(DatagramChannel socket, byte[] content) {
        return socket.alloc().directBuffer(content.length).writeBytes(content);
    }

    private static <T> T onLoop(DatagramChannel socket, Callable<T> task) throws Exception {
        return socket.eventLoop().submit(task).get(10, TimeUnit.SECONDS);
    }

    private static DatagramChannel sender(boolean noChecksum) throws InterruptedException {
        Bootstrap b = new Bootstrap().group(group).channel(EpollDatagramChannel.class)
                .handler(new ChannelInboundHandlerAdapter());
        if (noChecksum) {
            b.option(SO_NO_CHECK, 1);
        }
        return (DatagramChannel) b.bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    private static Receiver receiver() throws InterruptedException {
        Receiver r = new Receiver();
        r.channel = (DatagramChannel) new Bootstrap().group(group).channel(EpollDatagramChannel.class)
                .option(ChannelOption.SO_RCVBUF, 4 << 20)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(65_536))
                .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket msg) {
                        r.received.add(ByteBufUtil.getBytes(msg.content()));
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        r.address = r.channel.localAddress();
        return r;
    }

    private static final class Receiver {
        final BlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
        DatagramChannel channel;
        InetSocketAddress address;

        byte[] next() throws InterruptedException {
            byte[] p = received.poll(10, TimeUnit.SECONDS);
            assertNotNull(p, "a datagram arrived");
            return p;
        }

        void close() throws InterruptedException {
            channel.close().sync();
            assertFalse(channel.isOpen());
        }
    }
}
