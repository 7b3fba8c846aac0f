package io.ferry.transport.striped;

import io.ferry.transport.TransportStatistics;
import io.netty.channel.Channel;

/** One member connection as the striped channel sees it. Fields are used on the striped event loop. */
final class StripeMember {
    /** Blocks remembered per member to map what it did not deliver back to stream offsets. */
    static final int MAX_RECORDS = 1 << 16;

    final int index;
    final Channel channel;
    boolean reading;
    boolean inputDone;
    long lastEnd;
    /** The member's statistics as it began to close (a closed channel may no longer count its bytes). */
    volatile TransportStatistics lastStatistics;

    void keepStatistics(StripedTransport transport) {
        try {
            lastStatistics = transport.underlying().statistics(channel);
        } catch (RuntimeException gone) {
            // what was kept before stays
        }
    }

    /** Bytes written to the member, block headers included: its own stream's length. */
    long written;
    /** The latest blocks sent: {position in the member's stream, stream offset}. */
    private final java.util.ArrayDeque<long[]> blocks = new java.util.ArrayDeque<>();

    void recordBlock(long streamOffset, int length) {
        if (blocks.size() == MAX_RECORDS) {
            blocks.pollFirst();
        }
        blocks.addLast(new long[] {written, streamOffset});
        written += StripedWire.BLOCK_HEADER + length;
    }

    /**
     * The stream offset from which this member may not have delivered, given the bytes of its own
     * stream it did not get acknowledged: the start of the block holding its first unacknowledged
     * byte, or 0 when that block is older than those remembered.
     */
    long firstUndelivered(long unacknowledged, long streamEnd) {
        if (unacknowledged <= 0) {
            return streamEnd;
        }
        long position = written - unacknowledged;
        long found = 0;
        java.util.Iterator<long[]> newestFirst = blocks.descendingIterator();
        while (newestFirst.hasNext()) {
            long[] block = newestFirst.next();
            if (block[0] <= position) {
                return block[1];
            }
        }
        return found;
    }

    StripeMember(int index, Channel channel) {
        this.index = index;
        this.channel = channel;
    }
}
