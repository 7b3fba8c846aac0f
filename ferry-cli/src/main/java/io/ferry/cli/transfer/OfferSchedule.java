package io.ferry.cli.transfer;

import java.util.ArrayDeque;
import java.util.List;

/**
 * Which file a {@link FileSendSession} offers next and which prepared file streams next (event loop):
 * at most {@code parallelFiles} stream at once, in the order they became ready; up to
 * {@link #OFFER_AHEAD} files beyond those are offered ahead (so the receiver accepts, and both ends open
 * and hash, while others stream), but no more once the offered files not yet streaming hold
 * {@link #OFFER_AHEAD_BYTES} (at least one is). It moves files through OFFERED, READY and STREAMING and
 * keeps the counts; the session sends the frames.
 */
final class OfferSchedule {

    /**
     * Files offered beyond those streaming. 64 rather than 16: 4,096 files of 64 KiB moved 348-362 MiB/s
     * with 16, 402-407 with 64 (ferry-cli README, Speed).
     */
    static final int OFFER_AHEAD = 64;
    /**
     * Bytes of offered files that are not streaming yet, beyond which no more are offered ahead: a tree
     * of large files is not opened and hashed (on a first send) far ahead of its sending, so what the
     * hashing read is still in the page cache when sendfile reads it again.
     */
    static final long OFFER_AHEAD_BYTES = 64L << 20;

    private final List<OutgoingFile> files;
    private final int parallelFiles;
    /** Prepared files in the order they became READY (entries no longer READY are skipped). */
    private final ArrayDeque<OutgoingFile> ready = new ArrayDeque<>();
    private int nextToOffer;
    /** Files offered and not yet ended or done: at most parallelFiles + OFFER_AHEAD. */
    private int active;
    /** Files in state STREAMING: at most parallelFiles. */
    private int streaming;
    /** Bytes of the files offered and not streaming yet (OFFERED, PREPARING, READY). */
    private long waitingBytes;

    OfferSchedule(List<OutgoingFile> files, int parallelFiles) {
        this.files = files;
        this.parallelFiles = parallelFiles;
    }

    /** The next file to offer, now OFFERED, or null if none may be offered yet. */
    OutgoingFile nextOffer(long nowNanos) {
        if (nextToOffer >= files.size() || active >= parallelFiles + OFFER_AHEAD) {
            return null;
        }
        OutgoingFile file = files.get(nextToOffer);
        if (active >= parallelFiles && waitingBytes > 0 && waitingBytes + file.size() > OFFER_AHEAD_BYTES) {
            return null; // offered when a waiting file starts streaming or leaves
        }
        nextToOffer++;
        file.state = OutgoingFile.State.OFFERED;
        file.offeredNanos = nowNanos;
        active++;
        waitingBytes += file.size();
        return file;
    }

    /** {@code file} is prepared: READY, it waits for a streaming slot. */
    void ready(OutgoingFile file) {
        file.state = OutgoingFile.State.READY;
        ready.add(file);
    }

    /** The next ready file to stream, now STREAMING, or null if none is ready or every slot is taken. */
    OutgoingFile nextToStream() {
        while (streaming < parallelFiles) {
            OutgoingFile file = ready.poll();
            if (file == null) {
                return null;
            }
            if (file.state != OutgoingFile.State.READY) {
                continue; // refused or aborted while it waited
            }
            file.state = OutgoingFile.State.STREAMING;
            streaming++;
            waitingBytes -= file.size();
            return file;
        }
        return null;
    }

    /**
     * {@code file}, started eagerly, was found at the receiver and leaves state {@code was} to be prepared
     * again: a streaming slot it held goes to the next file, and it waits as an offered file does.
     */
    void restarting(OutgoingFile file, OutgoingFile.State was) {
        file.state = OutgoingFile.State.RESTARTING;
        if (was == OutgoingFile.State.STREAMING) {
            streaming--;
            waitingBytes += file.size();
        }
    }

    /**
     * {@code file} left state {@code was} for good (ended, refused or aborted): its place goes to the next
     * ones. False if it held no place (never offered, or given back already).
     */
    boolean released(OutgoingFile file, OutgoingFile.State was) {
        if (was == OutgoingFile.State.WAITING || was == OutgoingFile.State.ENDED || was == OutgoingFile.State.DONE) {
            return false;
        }
        active--;
        if (was == OutgoingFile.State.STREAMING) {
            streaming--;
        } else {
            waitingBytes -= file.size();
        }
        return true;
    }
}
