package io.ferry.transport.udp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.unix.SegmentedDatagramPacket;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.net.InetSocketAddress;

/**
 * Writes a UDP endpoint's outgoing packets to its UDP socket, gathering consecutive packets to one peer
 * into runs that leave as a single UDP GSO send ({@link SegmentedDatagramPacket}): the kernel walks its
 * UDP and IP layers once per run instead of once per packet, and on loopback (or towards a receiver with
 * {@code UDP_GRO}) the run travels as one buffer. A run is packets of one size, the last of them possibly
 * shorter, at most {@value #MAX_SEGMENTS} of them and at most {@value #MAX_GSO_PAYLOAD} bytes together,
 * written with one {@code iovec}. Packets given as places in a buffer the caller keeps ({@link #addPart}: a
 * connection's packets side by side in a slab) that follow one another go as one slice of it, uncopied,
 * retained once per run; a packet that does not follow them starts the next run. Packets given as buffers
 * of their own ({@link #add}) are copied into one buffer per run: a composite of the packets cost Netty an
 * NIO view per packet and a component each (the sender's largest allocation per GiB, JFR,
 * bench/results/2026-11-30-engine-cost) for what a 64 KiB copy does in a few microseconds.
 *
 * <p>What is not part of a run goes out as a plain datagram, in order; runs are written when the endpoint
 * flushes, and Netty hands all writes of one flush to {@code sendmmsg}. The first send the kernel
 * refuses (it does so with {@code EIO} on a route whose device cannot checksum a segmented datagram)
 * turns segmentation off for this socket; its packets are lost like any others and retransmitted. A send
 * that failed for its path ({@link SendErrors#isPathError}: a refused port, an unreachable route) leaves
 * segmentation on and reaches the socket's pipeline as a plain datagram's failure does.
 * Single-threaded: the socket's event loop only.
 */
public final class SegmentingSender {

    /** Most segments in one GSO send (the kernel's {@code UDP_MAX_SEGMENTS} is 64 on older kernels). */
    public static final int MAX_SEGMENTS = 64;
    /** Most payload bytes in one UDP datagram over IPv4, segmented or not. */
    public static final int MAX_GSO_PAYLOAD = 65_507;

    private static final InternalLogger log = InternalLoggerFactory.getInstance(SegmentingSender.class);

    private final DatagramChannel socket;
    private final boolean connectedSocket;
    private final ByteBuf[] run = new ByteBuf[MAX_SEGMENTS];
    private final ChannelFutureListener refusal = this::onSegmentedSendDone;
    private boolean segmenting;
    private int count;
    private int segmentSize;
    private int runBytes;
    private boolean sealed;
    /** The buffer a run of places lies in (retained once for the run), null for a run of buffers. */
    private ByteBuf runWhole;
    /** Where that run starts in it. */
    private int runStart;
    private InetSocketAddress to;
    private long segmentedSends;
    private long segmentsSent;
    private long adjacentSends;
    private long plainSends;

    /**
     * @param segmenting whether to try GSO at all (Linux epoll with {@code UDP_SEGMENT} support)
     * @param connectedSocket whether the socket is connected (plain datagrams are then written without address)
     */
    public SegmentingSender(DatagramChannel socket, boolean connectedSocket, boolean segmenting) {
        this.socket = socket;
        this.connectedSocket = connectedSocket;
        this.segmenting = segmenting;
    }

    /** Queues one packet for {@code to} (ownership passes); it is written by the next {@link #drain()} at the latest. */
    public void add(ByteBuf packet, InetSocketAddress to) {
        int size = packet.readableBytes();
        if (!segmenting || size == 0 || 2 * size > MAX_GSO_PAYLOAD) {
            drain();
            writePlain(packet, to);
            return;
        }
        if (count > 0 && (runWhole != null || !joins(size, to))) {
            drain();
        }
        if (count == 0) {
            start(size, to);
        }
        run[count++] = packet;
        grow(size);
    }

    /**
     * Queues bytes {@code offset} to {@code offset + length} of {@code whole} for {@code to}; {@code whole}
     * stays the caller's (a run retains it once). Written by the next {@link #drain()} at the latest.
     */
    public void addPart(ByteBuf whole, int offset, int length, InetSocketAddress to) {
        if (!segmenting || length == 0 || 2 * length > MAX_GSO_PAYLOAD) {
            drain();
            writePlain(whole.retainedSlice(offset, length), to);
            return;
        }
        if (count > 0 && (whole != runWhole || offset != runStart + runBytes || !joins(length, to))) {
            drain();
        }
        if (count == 0) {
            start(length, to);
            runWhole = whole.retain();
            runStart = offset;
        }
        count++;
        grow(length);
    }

    /** Whether a packet of {@code size} bytes for {@code to} may join the run being gathered. */
    private boolean joins(int size, InetSocketAddress to) {
        return !sealed && size <= segmentSize && count < MAX_SEGMENTS && runBytes + size <= MAX_GSO_PAYLOAD
                && sameAddress(to, this.to);
    }

    private void start(int size, InetSocketAddress to) {
        this.to = to;
        segmentSize = size;
        runBytes = 0;
        sealed = false;
    }

    private void grow(int size) {
        runBytes += size;
        if (size < segmentSize) {
            sealed = true; // only the last segment of a run may be shorter
        }
    }

    /** Writes the run being gathered (without flushing the socket). */
    public void drain() {
        if (count == 0) {
            return;
        }
        if (runWhole != null) {
            drainPlaces();
            return;
        }
        if (count == 1) {
            ByteBuf only = run[0];
            run[0] = null;
            count = 0;
            writePlain(only, to);
            return;
        }
        ByteBuf gathered = socket.alloc().directBuffer(runBytes);
        for (int i = 0; i < count; i++) {
            ByteBuf packet = run[i];
            int size = packet.readableBytes();
            packet.getBytes(packet.readerIndex(), gathered, gathered.writerIndex(), size); // address to address
            gathered.writerIndex(gathered.writerIndex() + size);
        }
        for (int i = 0; i < count; i++) {
            run[i].release();
            run[i] = null;
        }
        segmentedSends++;
        segmentsSent += count;
        count = 0;
        ChannelFuture sent = socket.write(new SegmentedDatagramPacket(gathered, segmentSize, to));
        sent.addListener(refusal);
    }

    /** Writes a run of places as one slice of their buffer, which carries the run's reference. */
    private void drainPlaces() {
        ByteBuf bytes = runWhole.slice(runStart, runBytes);
        runWhole = null;
        int n = count;
        count = 0;
        if (n == 1) {
            writePlain(bytes, to);
            return;
        }
        adjacentSends++;
        segmentedSends++;
        segmentsSent += n;
        socket.write(new SegmentedDatagramPacket(bytes, segmentSize, to)).addListener(refusal);
    }

    /** Releases what is gathered and not yet written (the socket is closing). */
    public void discard() {
        if (runWhole != null) {
            runWhole.release();
            runWhole = null;
            count = 0;
            return;
        }
        for (int i = 0; i < count; i++) {
            run[i].release();
            run[i] = null;
        }
        count = 0;
    }

    /** Whether runs still go out segmented on this socket. */
    public boolean isSegmenting() {
        return segmenting;
    }

    /** GSO sends written so far. */
    public long segmentedSends() {
        return segmentedSends;
    }

    /** GSO sends that left as a slice of the buffer their places lie in, uncopied ({@link #addPart}). */
    public long adjacentSends() {
        return adjacentSends;
    }

    /** Packets that left inside GSO sends. */
    public long segmentsSent() {
        return segmentsSent;
    }

    /** Packets written as plain datagrams. */
    public long plainSends() {
        return plainSends;
    }

    private void writePlain(ByteBuf packet, InetSocketAddress to) {
        plainSends++;
        socket.write(connectedSocket ? packet : new DatagramPacket(packet, to), socket.voidPromise());
    }

    private void onSegmentedSendDone(ChannelFuture f) {
        if (f.isSuccess() || !f.channel().isOpen()) {
            return;
        }
        if (SendErrors.isPathError(f.cause())) {
            f.channel().pipeline().fireExceptionCaught(f.cause()); // as a plain datagram's failure reaches the socket's handler
        } else if (segmenting) {
            segmenting = false;
            log.debug("UDP segmentation refused on {} ({}); sending plain datagrams from now on", f.channel(), f.cause().toString());
        }
    }

    private static boolean sameAddress(InetSocketAddress a, InetSocketAddress b) {
        return a == b || a.equals(b);
    }
}
