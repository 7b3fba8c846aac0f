package io.ferry.transport.ledbat.sim;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;

import java.util.ArrayList;
import java.util.List;

/**
 * An allocator that remembers every buffer it hands out so a test can assert that each one was
 * released exactly once (a double release throws at the point where it happens).
 */
public final class TrackingAllocator extends AbstractByteBufAllocator {
    private final UnpooledByteBufAllocator delegate = new UnpooledByteBufAllocator(false, true);
    private final List<ByteBuf> allocated = new ArrayList<>();

    public TrackingAllocator() {
        super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return track(delegate.heapBuffer(initialCapacity, maxCapacity));
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return track(delegate.heapBuffer(initialCapacity, maxCapacity));
    }

    @Override
    public boolean isDirectBufferPooled() {
        return false;
    }

    private ByteBuf track(ByteBuf buf) {
        allocated.add(buf);
        return buf;
    }

    /** Returns how many allocated buffers are still referenced. */
    public long unreleased() {
        long n = 0;
        for (ByteBuf b : allocated) {
            if (b.refCnt() != 0) {
                n++;
            }
        }
        return n;
    }

    /** Forgets released buffers to keep memory bounded in long runs. */
    public void compact() {
        allocated.removeIf(b -> b.refCnt() == 0);
    }

    public int allocatedCount() {
        return allocated.size();
    }
}
