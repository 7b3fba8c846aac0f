package io.ferry.cli.transfer;

import io.netty.buffer.ByteBuf;

import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * One file of a {@link FileSendSession}: where it is in its life (offered, prepared, streaming, ended,
 * done) and what its sending has reached. Fields marked "disk" belong to its disk queue ({@link SendDisk}),
 * the rest to the session's event loop.
 */
final class OutgoingFile {

    /**
     * READY: prepared (opened, its start known), waiting for a streaming slot. RESTARTING: started eagerly,
     * then found at the receiver (partial or existing), waiting for what its disk queue was doing to finish
     * before it is prepared again.
     */
    enum State { WAITING, OFFERED, PREPARING, READY, STREAMING, RESTARTING, ENDED, DONE }

    final int id;
    final SendPlan.Entry entry;
    /** The file's own queue on the disk threads: its disk work runs in order, beside other files'. */
    final SerialExecutor disk;
    State state = State.WAITING;
    /** When it was offered; meaningful only once the state has left WAITING. */
    long offeredNanos;
    long startOffset;
    long nextRead;
    int readsInFlight;
    boolean lastRead;
    final ArrayDeque<ByteBuf> ready = new ArrayDeque<>();
    long sent;
    byte[] digestValue;
    FileOutcome outcome;
    /** Zero-copy: the source the regions of this file share (event loop's copy of {@link #source}). */
    SourceFile regions;
    /** Whether every content byte was handed to the channel (END follows once the digest is known). */
    boolean contentDone;
    /** Whether {@link #digestValue} came from the hash cache. */
    boolean cached;
    /** Started before its ACCEPT arrived (EAGER); its END waits for the ACCEPT. */
    boolean eager;
    /** Whether the receiver's ACCEPT arrived. */
    boolean accepted;
    /** Which start this is (a restart after an eager start counts up): writes of an earlier one no longer count. */
    int attempt;
    // disk
    SourceFile source;
    MessageDigest digest;
    HashCache.Stat stat;
    long hashStartNanos;

    OutgoingFile(int id, SendPlan.Entry entry, Executor diskPool) {
        this.id = id;
        this.entry = entry;
        this.disk = new SerialExecutor(diskPool);
    }

    long size() {
        return entry.size();
    }

    /** Forgets what an eager start sent (the receiver drops it): the file is prepared and sent again. */
    void restart() {
        attempt++;
        releaseReady();
        startOffset = 0;
        nextRead = 0;
        readsInFlight = 0;
        lastRead = false;
        sent = 0;
        digestValue = null;
        regions = null;
        contentDone = false;
        cached = false;
    }

    /** Releases the chunks read and not yet written. */
    void releaseReady() {
        for (ByteBuf b; (b = ready.poll()) != null; ) {
            b.release();
        }
    }

    /** From the offer to {@code nowNanos}; zero for a file never offered (the session ended before it). */
    Duration elapsed(long nowNanos) {
        return state == State.WAITING ? Duration.ZERO : Duration.ofNanos(nowNanos - offeredNanos);
    }
}
