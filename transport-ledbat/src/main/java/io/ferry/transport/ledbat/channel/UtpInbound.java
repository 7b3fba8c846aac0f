package io.ferry.transport.ledbat.channel;

import io.ferry.transport.spi.ReadLoop;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;

import java.util.ArrayDeque;

/**
 * What a uTP channel's connection delivered and its application has not read yet (event loop), handed
 * to the pipeline in Netty's read loops ({@link ReadLoop}). Within the endpoint's batch of received
 * datagrams a loop stays open for the batch's later packets, so a batch ends in one read-complete. Bytes
 * count against the connection's receive window until the pipeline took them.
 */
final class UtpInbound implements ReadLoop.Inbound {

    private final UtpSocketChannel channel;
    private final ArrayDeque<Object> queue = new ArrayDeque<>();
    final ReadLoop reads;
    private boolean delivering;
    private boolean consumedAny;

    UtpInbound(UtpSocketChannel channel) {
        this.channel = channel;
        this.reads = new ReadLoop(channel);
    }

    /** Queues payload, or {@link ReadLoop#END} for the end of the stream. */
    void add(Object dataOrEnd) {
        queue.add(dataOrEnd);
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    /** Whether a read loop is handing bytes to the pipeline right now (a call from inside it must not start another). */
    boolean delivering() {
        return delivering;
    }

    /** Hands what the pipeline will take now to it; returns whether it consumed bytes (a window update may be due). */
    boolean deliver() {
        delivering = true;
        consumedAny = false;
        try {
            reads.drain(queue, this);
        } finally {
            delivering = false;
        }
        return consumedAny;
    }

    /** Drops what is queued, reporting its bytes consumed to {@code connection} (null: none yet). */
    void release(UtpConnection connection) {
        for (Object o; (o = queue.poll()) != null; ) {
            if (o instanceof ByteBuf) {
                int n = ((ByteBuf) o).readableBytes();
                ReferenceCountUtil.release(o);
                if (connection != null) {
                    connection.consumed(n, channel.endpoint().now());
                }
            }
        }
    }

    // ------------------------------------------------------------------ ReadLoop.Inbound

    @Override
    public boolean accepting() {
        return channel.acceptsInbound();
    }

    @Override
    public void endOfInput() {
        channel.endOfInput();
    }

    @Override
    public void consumed(int bytes) {
        UtpConnection connection = channel.connection();
        if (connection != null) {
            connection.consumed(bytes, channel.endpoint().now());
            consumedAny = true;
        }
    }

    /** Whether a read loop may get more bytes now: some are queued, or the endpoint's batch may bring more. */
    @Override
    public boolean moreMayCome() {
        return channel.inReadBatch || (!queue.isEmpty() && queue.peek() != ReadLoop.END);
    }

    @Override
    public boolean batchContinues() {
        return channel.inReadBatch;
    }
}
