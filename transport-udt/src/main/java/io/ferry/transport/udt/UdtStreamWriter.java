package io.ferry.transport.udt;

import com.barchart.udt.ExceptionUDT;
import com.barchart.udt.SocketUDT;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOutboundBuffer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.function.Supplier;

/**
 * The outbound half of a UDT channel's stream (event loop): in framed mode each write goes as a frame
 * (its 4-byte length, then the bytes) and {@link #trySendFin()} sends the zero-length frame that ends the
 * stream; a frame UDT took only part of is finished by the next sends. In raw stream and message mode the
 * bytes go as they are.
 */
final class UdtStreamWriter {

    private static final int HEADER = UdtStreamReader.HEADER;
    /**
     * Up to this many bytes of consecutive buffers leave in one UDT send (one frame, its header in the
     * same send): a send is a JNI call and a lock in UDT, so 512-byte records written one by one, each a
     * frame of its own sent as header and payload, ran at a tenth of TCP's rate.
     */
    static final int GATHER_BYTES = 64 * 1024;
    /** A lone buffer up to this size is copied to go out with its frame header; a larger one is sent in place. */
    static final int COPY_SINGLE_BYTES = 8 * 1024;

    private final SocketUDT socket;
    private final UdtSettings.StreamMode mode;
    private final Runnable full;
    private final Supplier<InetSocketAddress> peer;

    private final ByteBuffer header = ByteBuffer.allocateDirect(HEADER);
    private boolean headerPending;
    private long frameRemaining;
    private boolean finSent;
    private ByteBuffer gather;

    /** {@code full} runs after a send UDT did not take whole (see {@link LostEventCheck}). */
    UdtStreamWriter(SocketUDT socket, UdtSettings.StreamMode mode, Runnable full, Supplier<InetSocketAddress> peer) {
        this.socket = socket;
        this.mode = mode;
        this.full = full;
        this.peer = peer;
    }

    boolean finSent() {
        return finSent;
    }

    /** The bytes of the current frame not yet handed to UDT (0 between frames). */
    long frameRemaining() {
        return frameRemaining;
    }

    /**
     * Whether {@code msg}, the outbound buffer's current message, goes through {@link #sendGathered}: a
     * small buffer in a stream mode; a large one, a file region or a message is written in place.
     */
    boolean gathers(Object msg) {
        return mode != UdtSettings.StreamMode.MESSAGE && msg instanceof ByteBuf && ((ByteBuf) msg).readableBytes() <= COPY_SINGLE_BYTES;
    }

    /**
     * Copies the run of flushed buffers that fits {@value #GATHER_BYTES} bytes (after its frame header in
     * framed mode) into one direct buffer and sends it at once; what UDT did not take stays in the buffers
     * themselves ({@code removeBytes}), so nothing is held here between calls. Returns -1 if the run held
     * no bytes (nothing was sent: never a zero-length frame, which ends the stream), else the bytes left
     * unsent, 0 when UDT took them all.
     */
    int sendGathered(ChannelOutboundBuffer in) throws Exception {
        if (gather == null) {
            gather = ByteBuffer.allocateDirect(GATHER_BYTES);
        }
        boolean newFrame = atFrameStart();
        gather.clear();
        gather.position(newFrame ? HEADER : 0);
        // straight from the ByteBufs' reader indexes (the outbound buffer's cached NIO views of an entry
        // fall behind once part of it went out through write(ByteBuf))
        in.forEachFlushedMessage(this::gatherOne);
        int bytes = gather.position() - (newFrame ? HEADER : 0);
        if (bytes == 0) {
            return -1;
        }
        if (newFrame) {
            gather.putInt(0, bytes);
        }
        gather.flip();
        int sent = newFrame ? sendFrame(gather, bytes) : write(gather);
        if (sent > 0) {
            in.removeBytes(sent);
        }
        return bytes - sent;
    }

    /** Copies a flushed buffer into {@link #gather} if it fits whole; false (stop) at one that does not. */
    private boolean gatherOne(Object msg) {
        if (!(msg instanceof ByteBuf)) {
            return false;
        }
        ByteBuf buf = (ByteBuf) msg;
        int n = buf.readableBytes();
        if (n > gather.remaining()) {
            return false;
        }
        ByteBuffer target = gather.duplicate();
        target.limit(target.position() + n);
        buf.getBytes(buf.readerIndex(), target);
        gather.position(gather.position() + n);
        return true;
    }

    /** Sends a whole frame (header and payload in {@code frame}); returns the payload bytes taken, keeping the frame state. */
    private int sendFrame(ByteBuffer frame, int length) throws IOException {
        int n;
        try {
            n = send(frame);
        } catch (ExceptionUDT e) {
            throw sendFailed(e);
        }
        frameRemaining = length;
        if (n < HEADER) {
            header.clear();
            header.putInt(length).flip();
            header.position(n);
            headerPending = true;
            return 0;
        }
        frameRemaining -= n - HEADER;
        return n - HEADER;
    }

    /**
     * Sends from {@code buf} (a whole frame of its readable bytes when one starts here) and skips what UDT
     * took; returns that count. A message leaves in one send, so its parts are gathered first.
     */
    int write(ByteBuf buf, ByteBufAllocator alloc) throws IOException {
        int readable = buf.readableBytes();
        if (atFrameStart()) {
            startFrame(readable);
        }
        int written = 0;
        if (buf.nioBufferCount() == 1) {
            written = write(buf.internalNioBuffer(buf.readerIndex(), readable));
        } else if (mode == UdtSettings.StreamMode.MESSAGE) {
            ByteBuf whole = alloc.directBuffer(readable);
            try {
                whole.writeBytes(buf, buf.readerIndex(), readable);
                written = write(whole.internalNioBuffer(0, readable));
            } finally {
                whole.release();
            }
        } else {
            // A composite goes part by part: merging it would copy it into one heap buffer.
            for (ByteBuffer part : buf.nioBuffers(buf.readerIndex(), readable)) {
                int remaining = part.remaining();
                int n = write(part);
                written += n;
                if (n < remaining) {
                    break;
                }
            }
        }
        if (written > 0) {
            buf.skipBytes(written);
        }
        return written;
    }

    /** Sends from {@code src}, inside the current frame in framed mode (starting one if none is open); returns the payload bytes taken. */
    int write(ByteBuffer src) throws IOException {
        try {
            if (mode != UdtSettings.StreamMode.FRAMED) {
                return send(src);
            }
            if (frameRemaining == 0 && !headerPending) {
                startFrame(src.remaining());
            }
            if (headerPending && !sendHeader()) {
                return 0;
            }
            int limit = src.limit();
            if (src.remaining() > frameRemaining) {
                src.limit(src.position() + (int) frameRemaining);
            }
            int n;
            try {
                n = send(src);
            } finally {
                src.limit(limit);
            }
            frameRemaining -= n;
            return n;
        } catch (ExceptionUDT e) {
            throw sendFailed(e);
        }
    }

    /** Sends the end-of-stream frame once; false if UDT's send buffer has no room yet. */
    boolean trySendFin() throws IOException {
        if (finSent) {
            return true;
        }
        if (frameRemaining > 0) {
            throw new IOException("the stream to " + peer.get() + " ended in the middle of a write; it cannot be ended cleanly");
        }
        if (!headerPending) {
            startFrame(0);
        }
        try {
            if (!sendHeader()) {
                return false;
            }
        } catch (ExceptionUDT e) {
            throw new IOException(e.getMessage(), e);
        }
        finSent = true;
        return true;
    }

    private boolean atFrameStart() {
        return mode == UdtSettings.StreamMode.FRAMED && frameRemaining == 0 && !headerPending;
    }

    private void startFrame(int length) {
        header.clear();
        header.putInt(length).flip();
        headerPending = true;
        frameRemaining = length;
    }

    private boolean sendHeader() throws ExceptionUDT {
        socket.send(header);
        if (header.hasRemaining()) {
            full.run();
            return false;
        }
        headerPending = false;
        return true;
    }

    /** barchart sends from direct buffers, or from arrays through their own entry point. */
    private int send(ByteBuffer src) throws ExceptionUDT {
        int requested = src.remaining();
        int n;
        if (src.isDirect()) {
            n = Math.max(0, socket.send(src));
        } else {
            int at = src.arrayOffset() + src.position();
            n = Math.max(0, socket.send(src.array(), at, at + requested));
            src.position(src.position() + n);
        }
        if (n < requested) {
            full.run();
        }
        return n;
    }

    private IOException sendFailed(ExceptionUDT e) {
        return new IOException("UDT send to " + peer.get() + " failed: " + e.getMessage(), e);
    }
}
