package io.ferry.cli.transfer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Arrays;

import static io.ferry.cli.transfer.TransferProtocol.KIND_EXISTING;
import static io.ferry.cli.transfer.TransferProtocol.KIND_PARTIAL;

/**
 * The disk side of a {@link FileSendSession}, run on each file's own disk queue: opens a file and checks
 * the receiver's prefix against it, takes its digest from the hash cache or hashes it, reads and hashes
 * its chunks into DATA frames, and checks that it did not change while it was sent. What it finds goes to
 * the session's event loop through {@link Results}, posted on the session's {@link LoopMailbox}.
 */
final class SendDisk {

    /** What the disk side tells the session, on the session's event loop. */
    interface Results {
        /** Opened: its content starts at {@code from}; {@code completeDigest} if nothing is left to send. */
        void started(OutgoingFile file, long from, byte[] completeDigest, SourceFile source);

        /** The file's digest, from the cache or hashed beside a zero-copy sending. */
        void hashed(OutgoingFile file, byte[] sha256, boolean fromCache);

        /** A chunk read into a DATA frame (ownership passes); {@code sha256} with the last chunk. */
        void chunkRead(OutgoingFile file, ByteBuf frame, byte[] sha256);

        /** The file is as it was when it was opened, now that its content was handed to the channel. */
        void unchanged(OutgoingFile file);

        /** The file cannot be sent (it vanished, shrank or changed). */
        void failed(OutgoingFile file, String message);
    }

    private final SendSettings settings;
    private final LoopMailbox loop;
    private final Results results;

    SendDisk(SendSettings settings, LoopMailbox loop, Results results) {
        this.settings = settings;
        this.loop = loop;
        this.results = results;
    }

    /** On the file's disk queue: open it, check the receiver's prefix against ours, then start. */
    void prepare(OutgoingFile file, int kind, long offset, byte[] theirs, boolean zeroCopy) {
        long start = 0;
        try {
            file.hashStartNanos = epochNanos();
            file.stat = HashCache.Stat.of(file.entry.source());
            file.source = new SourceFile(FileChannel.open(file.entry.source(), StandardOpenOption.READ));
            long size = file.source.channel.size();
            if (size < file.size()) {
                throw new IOException("it shrank from " + file.size() + " to " + size + " bytes since it was listed");
            }
            file.digest = settings.checksum().newDigest();
            if (offset > 0 && offset <= file.size() && (kind == KIND_PARTIAL || kind == KIND_EXISTING)) {
                Digests.update(file.digest, file.source.channel, offset);
                if (Arrays.equals(Digests.peek(file.digest), theirs)) {
                    start = offset;
                } else {
                    file.digest.reset();
                }
            }
        } catch (IOException e) {
            closeSource(file);
            String message = "cannot read " + file.entry.source() + ": " + Failures.reason(e);
            loop.post(() -> results.failed(file, message));
            return;
        }
        long from = start;
        byte[] complete = from == file.size() ? file.digest.digest() : null;
        if (complete != null) {
            closeSource(file);
        } else if (settings.hashCache() != null && settings.hashCache().checksum() == settings.checksum()
                && file.stat.size() == file.size()) {
            byte[] remembered = settings.hashCache().lookup(file.entry.source(), file.stat).orElse(null);
            if (remembered != null) {
                file.digest = null; // nothing to hash: the receiver verifies the content against this digest
                SourceFile source = file.source;
                loop.post(() -> {
                    results.started(file, from, null, source);
                    results.hashed(file, remembered, true);
                });
                return;
            }
        }
        SourceFile source = file.source;
        loop.post(() -> results.started(file, from, complete, source));
        if (complete == null && zeroCopy) {
            file.disk.execute(() -> hashRest(file, from));
        }
    }

    /** Zero-copy, on the file's disk queue: hashes the content from {@code from} on, beside the sending. */
    private void hashRest(OutgoingFile file, long from) {
        if (file.source == null) {
            return; // aborted meanwhile
        }
        ByteBuffer buffer = Digests.buffer();
        try {
            long position = from;
            while (position < file.size()) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), file.size() - position));
                int n = file.source.channel.read(buffer, position);
                if (n < 0) {
                    throw new IOException("it shrank while being sent (ended after " + position + " of " + file.size() + " bytes)");
                }
                buffer.flip();
                file.digest.update(buffer);
                position += n;
            }
        } catch (IOException e) {
            closeSource(file);
            String message = "cannot read " + file.entry.source() + ": " + Failures.reason(e);
            loop.post(() -> results.failed(file, message));
            return;
        }
        byte[] sha256 = file.digest.digest();
        remember(file, sha256, from);
        loop.post(() -> results.hashed(file, sha256, false));
    }

    /** On the disk queue: keeps the digest of a whole file hashed from its start for the next send. */
    private void remember(OutgoingFile file, byte[] sha256, long hashedFrom) {
        HashCache cache = settings.hashCache();
        if (cache == null || cache.checksum() != settings.checksum() || hashedFrom != 0 || file.stat.size() != file.size()) {
            return;
        }
        try {
            cache.remember(file.entry.source(), file.stat, HashCache.Stat.of(file.entry.source()), file.hashStartNanos, sha256);
        } catch (IOException gone) {
            // not remembered: the end-of-file check reports it
        }
    }

    /**
     * On the disk queue, once the content was handed to the channel: fails the file if it changed since it
     * was opened (its digest would not describe what was sent), ends it otherwise.
     */
    void checkUnchanged(OutgoingFile file) {
        String changed;
        try {
            HashCache.Stat now = HashCache.Stat.of(file.entry.source());
            changed = now.equals(file.stat) ? null : file.entry.source() + " changed while it was being sent (it was "
                    + file.stat.size() + " bytes modified at " + Instant.EPOCH.plusNanos(file.stat.modifiedNanos()) + ", it is now "
                    + now.size() + " bytes modified at " + Instant.EPOCH.plusNanos(now.modifiedNanos()) + "); send it again";
        } catch (IOException e) {
            changed = "cannot read " + file.entry.source() + " any more: " + Failures.reason(e);
        }
        if (changed != null && settings.hashCache() != null) {
            settings.hashCache().forget(file.entry.source());
        }
        String message = changed;
        loop.post(() -> {
            if (message != null) {
                results.failed(file, message);
            } else {
                results.unchanged(file); // flushed with whatever else the disk threads posted (LoopMailbox)
            }
        });
    }

    private static long epochNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** On the file's disk queue: reads and hashes one chunk into a DATA frame. */
    void read(OutgoingFile file, ByteBufAllocator alloc, long position, int length, boolean last) {
        if (file.source == null) {
            return; // the file was aborted meanwhile
        }
        ByteBuf frame = Frames.dataHeader(alloc, file.id, length);
        try {
            int done = 0;
            while (done < length) {
                int n = frame.writeBytes(file.source.channel, position + done, length - done);
                if (n < 0) {
                    throw new IOException("it shrank while being sent (ended after " + (position + done) + " of " + file.size() + " bytes)");
                }
                done += n;
            }
            if (file.digest != null) {
                file.digest.update(frame.nioBuffer(Frames.DATA_HEADER, length));
            }
        } catch (IOException | RuntimeException e) {
            frame.release();
            closeSource(file);
            String message = "cannot read " + file.entry.source() + ": " + (e instanceof IOException ? Failures.reason((IOException) e) : e);
            loop.post(() -> results.failed(file, message));
            return;
        }
        byte[] sha256 = last && file.digest != null ? file.digest.digest() : null;
        if (last) {
            closeSource(file);
            if (sha256 != null) {
                remember(file, sha256, file.startOffset);
            }
        }
        loop.post(() -> results.chunkRead(file, frame, sha256));
    }

    static void closeSource(OutgoingFile file) {
        if (file.source != null) {
            file.source.release(); // closed once the regions still queued are sent too
            file.source = null;
        }
    }
}
