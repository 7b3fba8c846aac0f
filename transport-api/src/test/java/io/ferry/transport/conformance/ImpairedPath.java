package io.ferry.transport.conformance;

import java.net.InetSocketAddress;

/**
 * A path between a test's client and server that is slower or lossier than loopback, so that data is
 * still in flight when a writer closes. A client connects to {@link #address()}.
 */
public interface ImpairedPath extends AutoCloseable {

    /** Where the client connects. */
    InetSocketAddress address();

    /** From now on nothing passes in either direction, as if the path went dead. */
    void blackhole();

    /**
     * Bytes the path itself may have acknowledged to the sender without passing them on (a TCP relay's
     * socket buffers; zero for a datagram relay): a writer cannot count those as unacknowledged.
     */
    long maxHeldBytes();

    @Override
    void close() throws InterruptedException;
}
