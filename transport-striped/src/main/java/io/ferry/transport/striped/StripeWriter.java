package io.ferry.transport.striped;

import io.ferry.transport.spi.FileRegionChunks;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.FileRegion;

/**
 * The writing side of a striped channel: cuts what the application wrote into blocks of at most
 * {@link StripedChannel#BLOCK_SIZE} and hands each to the next member that can take it, behind a block
 * header naming its offset in the stream when the channel has more than one member. On the striped
 * channel's event loop; {@link #bytesSent()} may be read from any thread.
 */
final class StripeWriter {
    private static final int BLOCK_SIZE = StripedChannel.BLOCK_SIZE;

    private final StripedChannel channel;
    private final boolean framed;
    private long sendOffset;
    private int nextMember;
    private volatile long bytesSent;

    StripeWriter(StripedChannel channel, boolean framed) {
        this.channel = channel;
        this.framed = framed;
    }

    /**
     * Moves queued bytes to members: to whichever is writable, or, when {@code force}, to every member in
     * turn (a close or half-close hands everything over and lets each member drain at its own pace).
     */
    void push(StripeMember[] members, ChannelOutboundBuffer in, boolean force, boolean carriesFileRegions) {
        boolean[] touched = new boolean[members.length];
        for (;;) {
            Object msg = in.current();
            if (msg == null) {
                break;
            }
            if (msg instanceof FileRegion && !carriesFileRegions) {
                // read a block at a time and sent as bytes are: the region is never in memory whole
                FileRegion region = (FileRegion) msg;
                if (region.transferred() >= region.count()) {
                    in.remove();
                    continue;
                }
                StripeMember m = pick(members, force);
                if (m == null) {
                    break;
                }
                ByteBuf chunk;
                try {
                    chunk = FileRegionChunks.next(region, m.channel.alloc(), BLOCK_SIZE);
                } catch (java.io.IOException e) {
                    in.remove(e);
                    continue;
                }
                if (chunk == null) {
                    in.remove(); // the region says it is done
                    continue;
                }
                int length = chunk.readableBytes();
                send(m, chunk, length);
                touched[m.index] = true;
                in.progress(length);
                continue;
            }
            if (msg instanceof FileRegion) {
                // unframed over one kernel socket (carriesFileRegions): the region goes to it whole
                StripeMember m = pick(members, force);
                if (m == null) {
                    break;
                }
                FileRegion region = (FileRegion) msg;
                if (region instanceof io.netty.channel.DefaultFileRegion && region.transferred() == 0) {
                    try {
                        // the member's own write of a region longer than its file fails after this write
                        // completed: check here, as Netty's socket channels do before they send
                        channel.checkFileRegion((io.netty.channel.DefaultFileRegion) region);
                    } catch (java.io.IOException e) {
                        in.remove(e);
                        continue;
                    }
                }
                long length = region.count() - region.transferred();
                m.written += length;
                m.channel.write(region.retain(), m.channel.voidPromise());
                touched[m.index] = true;
                sendOffset += length;
                bytesSent += length;
                in.progress(length);
                in.remove();
                continue;
            }
            ByteBuf buf = (ByteBuf) msg;
            if (!buf.isReadable()) {
                in.remove();
                continue;
            }
            StripeMember m = pick(members, force);
            if (m == null) {
                break; // every member is full; a member's writability change resumes
            }
            int length = framed ? Math.min(buf.readableBytes(), BLOCK_SIZE) : buf.readableBytes();
            send(m, buf.readRetainedSlice(length), length);
            touched[m.index] = true;
            in.progress(length);
            if (!buf.isReadable()) {
                in.remove();
            }
        }
        for (StripeMember m : members) {
            if (touched[m.index]) {
                m.channel.flush();
            }
        }
    }

    /** Hands {@code length} bytes of the stream to member {@code m}, behind a block header when framed. */
    private void send(StripeMember m, ByteBuf piece, int length) {
        Channel ch = m.channel;
        if (framed) {
            m.recordBlock(sendOffset, length);
            ch.write(StripedWire.blockHeader(ch.alloc(), sendOffset, length), ch.voidPromise());
        } else {
            m.written += length;
        }
        ch.write(piece, ch.voidPromise());
        sendOffset += length;
        bytesSent += length;
    }

    private StripeMember pick(StripeMember[] members, boolean force) {
        for (int i = 0; i < members.length; i++) {
            StripeMember m = members[(nextMember + i) % members.length];
            if (m.channel.isActive() && (force || m.channel.isWritable())) {
                nextMember = (m.index + 1) % members.length;
                return m;
            }
        }
        return null;
    }

    /** The stream offset of the next byte written: every byte before it was handed to a member. */
    long sendOffset() {
        return sendOffset;
    }

    /** Application bytes handed to the members. */
    long bytesSent() {
        return bytesSent;
    }
}
