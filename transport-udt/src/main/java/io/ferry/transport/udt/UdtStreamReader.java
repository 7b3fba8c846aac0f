package io.ferry.transport.udt;

import com.barchart.udt.ErrorUDT;
import com.barchart.udt.ExceptionUDT;
import com.barchart.udt.SocketUDT;
import io.netty.buffer.ByteBuf;
import io.netty.channel.RecvByteBufAllocator;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.function.Supplier;

/**
 * The inbound half of a UDT channel's stream (event loop): in framed mode it takes each frame's 4-byte
 * length off the socket and stops at the zero-length frame that ends the stream; in raw stream and
 * message mode the bytes come as they are and a peer's close, which UDT reports as a broken connection,
 * is the end of the stream.
 */
final class UdtStreamReader {

    static final int HEADER = 4;

    private final SocketUDT socket;
    private final UdtSettings.StreamMode mode;
    private final Runnable starved;
    private final Supplier<InetSocketAddress> peer;

    private final ByteBuffer header = ByteBuffer.allocateDirect(HEADER);
    private long frameRemaining;
    private boolean finReceived;

    /** {@code starved} runs after a receive that emptied UDT's buffer (see {@link LostEventCheck}). */
    UdtStreamReader(SocketUDT socket, UdtSettings.StreamMode mode, Runnable starved, Supplier<InetSocketAddress> peer) {
        this.socket = socket;
        this.mode = mode;
        this.starved = starved;
        this.peer = peer;
    }

    /** Whether the peer's end-of-stream frame has been taken off the socket. */
    boolean finReceived() {
        return finReceived;
    }

    /** Reads into {@code buf}: the bytes read, 0 if none are here, -1 at the end of the stream. */
    int read(ByteBuf buf, RecvByteBufAllocator.Handle handle) throws IOException {
        if (finReceived) {
            return -1;
        }
        if (mode != UdtSettings.StreamMode.FRAMED) {
            handle.attemptedBytesRead(buf.writableBytes());
            return receive(buf, buf.writableBytes());
        }
        int total = 0;
        while (buf.isWritable()) {
            if (frameRemaining == 0) {
                if (!readHeader()) {
                    break;
                }
                if (finReceived) {
                    if (total > 0) {
                        // Deliver these bytes first; the read loop comes back for the end of stream.
                        handle.attemptedBytesRead(total);
                        return total;
                    }
                    return -1;
                }
            }
            int n = receive(buf, (int) Math.min(buf.writableBytes(), frameRemaining));
            if (n <= 0) {
                break;
            }
            frameRemaining -= n;
            total += n;
        }
        handle.attemptedBytesRead(buf.isWritable() ? buf.writableBytes() + total : total);
        return total;
    }

    /** Reads (the rest of) a frame header; false if it is not all here yet. */
    private boolean readHeader() throws IOException {
        int n;
        try {
            n = socket.receive(header);
        } catch (ExceptionUDT e) {
            throw endOfConnection(e);
        }
        if (n <= 0 || header.hasRemaining()) {
            starved.run();
            return false;
        }
        header.flip();
        int length = header.getInt();
        header.clear();
        if (length < 0) {
            throw new IOException("malformed Ferry UDT frame from " + peer.get() + " (length " + length
                    + "); a plain UDT peer needs " + UdtChannelOption.RAW_STREAM.name() + " on this side");
        }
        if (length == 0) {
            finReceived = true;
        }
        frameRemaining = length;
        return true;
    }

    private int receive(ByteBuf buf, int max) throws IOException {
        int n;
        try {
            if (buf.hasArray()) {
                int at = buf.arrayOffset() + buf.writerIndex();
                n = socket.receive(buf.array(), at, at + max);
            } else {
                n = socket.receive(buf.internalNioBuffer(buf.writerIndex(), max));
            }
        } catch (ExceptionUDT e) {
            if (mode != UdtSettings.StreamMode.FRAMED && isConnectionGone(e)) {
                return -1; // the peer closed: UDT reports it as a broken connection
            }
            throw endOfConnection(e);
        }
        if (n < max) {
            starved.run();
        }
        if (n <= 0) {
            return 0;
        }
        buf.writerIndex(buf.writerIndex() + n);
        return n;
    }

    private IOException endOfConnection(ExceptionUDT e) {
        if (isConnectionGone(e)) {
            return new IOException("UDT connection with " + peer.get() + " reset: the peer went away without ending its stream ("
                    + e.getError() + ")", e);
        }
        return e;
    }

    /** Whether UDT reports the connection lost (the peer closed, broke, or the socket is gone). */
    static boolean isConnectionGone(ExceptionUDT e) {
        ErrorUDT error = e.getError();
        return error == ErrorUDT.ECONNLOST || error == ErrorUDT.ENOCONN || error == ErrorUDT.EINVSOCK;
    }
}
