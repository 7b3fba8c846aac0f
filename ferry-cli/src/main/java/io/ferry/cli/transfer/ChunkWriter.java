package io.ferry.cli.transfer;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The sender's writing side: has the streaming files' chunks read ahead on their disk queues ({@link SendDisk})
 * and moves the ready ones (or, zero-copy, regions of the files) into the channel as DATA frames, round robin
 * over the files, while the channel is writable and, with a rate limit, while the session is not ahead of its
 * schedule. Runs on the session's event loop.
 */
final class ChunkWriter {

    /** Chunks read ahead of the writer per file (buffered reads; zero-copy reads nothing). */
    private static final int READ_AHEAD = 4;
    /**
     * Content a session sends of files whose ACCEPT has not arrived (protocol 6's eager start), the chunk that
     * crosses it included: far more than any path's first round trip carries (16 streams' initial windows are
     * about 230 KB), and little to send twice when the receiver holds the file and takes long to say so (it
     * reads a large partial file through before it answers).
     */
    static final long EAGER_BYTES = 4L << 20;

    private final ArrayDeque<OutgoingFile> streaming = new ArrayDeque<>();
    private final ChannelHandlerContext ctx;
    private final LoopMailbox loop;
    private final SendSettings settings;
    private final ProgressListener progress;
    private final SendDisk disk;
    /** Whether the session is over (nothing more is written). */
    private final BooleanSupplier over;
    /** Told when every byte of a file's content was handed to the channel. */
    private final Consumer<OutgoingFile> contentWritten;
    private long startNanos;
    private long written;
    private long eagerLeft = EAGER_BYTES;
    private ScheduledFuture<?> pacingWakeUp;

    ChunkWriter(ChannelHandlerContext ctx, LoopMailbox loop, SendSettings settings, ProgressListener progress, SendDisk disk,
                BooleanSupplier over, Consumer<OutgoingFile> contentWritten) {
        this.ctx = ctx;
        this.loop = loop;
        this.settings = settings;
        this.progress = progress;
        this.disk = disk;
        this.over = over;
        this.contentWritten = contentWritten;
    }

    /** The session began at {@code nanos}: the rate limit's schedule starts there. */
    void begin(long nanos) {
        startNanos = nanos;
    }

    /** {@code file} streams from now on. */
    void add(OutgoingFile file) {
        streaming.add(file);
        requestReads(file);
    }

    /** Buffered reads: keeps up to {@link #READ_AHEAD} chunks of {@code file} read or being read. */
    private void requestReads(OutgoingFile file) {
        if (file.regions != null) {
            return; // zero-copy: regions are made as the channel takes them
        }
        while (!file.lastRead && file.readsInFlight + file.ready.size() < READ_AHEAD) {
            long position = file.nextRead;
            int length = (int) Math.min(settings.chunkSize(), file.size() - position);
            boolean last = position + length == file.size();
            file.nextRead += length;
            file.lastRead = last;
            file.readsInFlight++;
            ByteBufAllocator alloc = ctx.alloc();
            file.disk.execute(() -> disk.read(file, alloc, position, length, last));
        }
    }

    /** A chunk of {@code file} was read into {@code frame} (ownership passes); {@code digest} with its last one. */
    void chunkRead(OutgoingFile file, ByteBuf frame, byte[] digest) {
        file.readsInFlight--;
        if (file.state != OutgoingFile.State.STREAMING || over.getAsBoolean()) {
            frame.release();
            return;
        }
        file.ready.add(frame);
        if (digest != null) {
            file.digestValue = digest;
        }
        pump();
    }

    void remove(OutgoingFile file) {
        streaming.remove(file);
    }

    /** Stops the rate limit's pending wake-up (the session is over). */
    void stop() {
        if (pacingWakeUp != null) {
            pacingWakeUp.cancel(false);
        }
    }

    /** Moves ready chunks into the channel, round robin over the streaming files, while it is writable. */
    void pump() {
        boolean wrote = false;
        while (ctx.channel().isWritable() && !streaming.isEmpty() && !over.getAsBoolean()) {
            if (settings.rateLimit() > 0 && paced()) {
                break;
            }
            OutgoingFile file = nextWithData();
            if (file == null) {
                break;
            }
            wrote = true;
            if (file.regions != null) {
                writeRegion(file);
                continue;
            }
            ByteBuf frame = file.ready.poll();
            int length = frame.readableBytes() - Frames.DATA_HEADER;
            written += length;
            eagerLeft -= file.accepted ? 0 : length;
            int attempt = file.attempt;
            ctx.write(frame).addListener(f -> advanced(f.isSuccess(), file, attempt, length));
            if (file.lastRead && file.readsInFlight == 0 && file.ready.isEmpty()) {
                written(file);
            } else {
                requestReads(file);
            }
        }
        if (wrote) {
            loop.flush();
        }
    }

    private OutgoingFile nextWithData() {
        for (int i = 0; i < streaming.size(); i++) {
            OutgoingFile file = streaming.poll();
            streaming.add(file);
            if ((file.accepted || eagerLeft > 0) && (!file.ready.isEmpty() || (file.regions != null && !file.lastRead))) {
                return file;
            }
        }
        return null;
    }

    /** Zero-copy: writes the next chunk of {@code file} as a DATA header and a region of the file. */
    private void writeRegion(OutgoingFile file) {
        long position = file.nextRead;
        int length = (int) Math.min(settings.chunkSize(), file.size() - position);
        file.nextRead += length;
        file.lastRead = file.nextRead == file.size();
        written += length;
        eagerLeft -= file.accepted ? 0 : length;
        ctx.write(Frames.dataHeaderAlone(ctx.alloc(), file.id, length), ctx.voidPromise());
        int attempt = file.attempt;
        ctx.write(new SourceFile.Region(file.regions, position, length)).addListener(f -> advanced(f.isSuccess(), file, attempt, length));
        if (file.lastRead) {
            written(file);
        }
    }

    private void advanced(boolean success, OutgoingFile file, int attempt, int length) {
        if (success && attempt == file.attempt) { // (an eager start's content, sent again, counts once)
            file.sent += length;
            progress.fileAdvanced(file.id, file.startOffset + file.sent);
        }
    }

    private void written(OutgoingFile file) {
        streaming.remove(file);
        file.contentDone = true;
        contentWritten.accept(file);
    }

    /** With a rate limit: whether the sender is ahead of schedule (then a wake-up is scheduled). */
    private boolean paced() {
        long dueNanos = startNanos + (long) (written * 1e9 / settings.rateLimit());
        long wait = dueNanos - System.nanoTime();
        if (wait <= 0) {
            return false;
        }
        if (pacingWakeUp == null) {
            pacingWakeUp = ctx.executor().schedule(() -> {
                pacingWakeUp = null;
                pump();
            }, wait, TimeUnit.NANOSECONDS);
        }
        return true;
    }
}
