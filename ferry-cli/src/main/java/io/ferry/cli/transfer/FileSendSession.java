package io.ferry.cli.transfer;

import io.ferry.cli.transfer.FrameDecoder.Foreign;
import io.ferry.cli.transfer.FrameDecoder.Frame;
import io.ferry.cli.transfer.FrameDecoder.Hello;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.striped.StripedChannel;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ReferenceCounted;
import io.netty.util.concurrent.ScheduledFuture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import static io.ferry.cli.transfer.TransferProtocol.*;

/**
 * The sending side of a ferry session: offers the files of a {@link SendPlan}, streams up to
 * {@link SendSettings#parallelFiles()} of them at once with their chunks interleaved, resumes each
 * from what the receiver already holds once the prefix's checksum matched, and completes
 * {@link #result()} when every file has a verdict.
 *
 * <p><b>Offers ahead.</b> Up to {@link #OFFER_AHEAD} files (and {@link #OFFER_AHEAD_BYTES}) beyond those streaming are offered, accepted and
 * opened (and, with zero-copy, hashed) ahead of their turn, so that each file's OFFER/ACCEPT round trip and
 * the receiver's creating of its partial file overlap the streaming of the files before it; a prepared file
 * starts streaming (START, then DATA) when a streaming file ends. Many small files move at the speed of the
 * data instead of one round trip per file and slot, without interleaving more files' chunks or holding more
 * buffers.
 *
 * <p>Files are read and hashed on {@link DiskThreads} (one ordered queue per file), never on the
 * event loop; the event loop only moves ready chunks into the channel while it is writable, so the
 * memory in use is bounded by a few chunks per streaming file on any transport.
 *
 * <p><b>Zero-copy.</b> Where the channel writes a {@link io.netty.channel.FileRegion} to a kernel TCP socket
 * (plain TCP, or a striped channel of one TCP stream, and no {@link SslHandler}), each DATA frame is a small
 * header buffer followed by a {@link DefaultFileRegion} of the file, which native epoll sends with
 * {@code sendfile}: the content never enters the JVM. The checksum is then computed by reading the file once
 * on its disk queue, beside the sending, and END waits for it. Elsewhere (TLS, uTP, UDT, several streams)
 * chunks are read into buffers and hashed as they are read.
 *
 * <p><b>Hash cache.</b> With {@link SendSettings#hashCache()} a file whose size, modification time and file
 * key match a remembered digest is not hashed again ({@link HashCache}). Either way, when its content has
 * been handed to the channel the file's size and modification time are read again, and a file that changed
 * since it was opened fails (its digest would not describe what was sent); the receiver's verification of
 * the checksum catches what the modification time does not show.
 */
public final class FileSendSession extends ChannelInboundHandlerAdapter {

    private static final int READ_AHEAD = 4;
    /**
     * Files offered beyond those streaming (see the class comment). 64 rather than 16: 4,096 files of 64 KiB
     * moved 348-362 MiB/s with 16, 402-407 with 64 (ferry-cli README, Speed).
     */
    static final int OFFER_AHEAD = 64;
    /**
     * Bytes of offered files that are not streaming yet, beyond which no more are offered ahead (at least one
     * is): a tree of large files is not opened and hashed (on a first send) far ahead of its sending, so what
     * the hashing read is still in the page cache when sendfile reads it again.
     */
    static final long OFFER_AHEAD_BYTES = 64L << 20;

    /** READY: prepared (opened, its start known), waiting for a streaming slot. */
    private enum State { WAITING, OFFERED, PREPARING, READY, STREAMING, ENDED, DONE }

    /** One file's state. Fields marked "disk" belong to its disk queue, the rest to the event loop. */
    private final class Outgoing {
        final int id;
        final SendPlan.Entry entry;
        final SerialExecutor disk;
        State state = State.WAITING;
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
        // disk
        SourceFile source;
        MessageDigest digest;
        HashCache.Stat stat;
        long hashStartNanos;

        Outgoing(int id, SendPlan.Entry entry) {
            this.id = id;
            this.entry = entry;
            this.disk = new SerialExecutor(diskPool);
        }

        long size() {
            return entry.size();
        }
    }

    private final List<Outgoing> files = new ArrayList<>();
    private final SendSettings settings;
    private final ProgressListener progress;
    private final Executor diskPool;
    /** What the disk threads hand to the event loop: files opened and hashed, chunks read, files checked. */
    private LoopMailbox loop;
    private final CompletableFuture<SessionResult> result = new CompletableFuture<>();
    private final ArrayDeque<Outgoing> streaming = new ArrayDeque<>();
    /** Prepared files in the order they became READY (entries no longer READY are skipped). */
    private final ArrayDeque<Outgoing> readyToStream = new ArrayDeque<>();

    private ChannelHandlerContext ctx;
    private SharedSecret token;
    private byte[] senderNonce;
    private byte[] receiverNonce;
    /** Whether offers may go out: at once without a token, after the receiver's proof with one. */
    private boolean admitted;
    private boolean helloReceived;
    private int nextToOffer;
    /** Files offered and not yet ended or done: at most parallelFiles + OFFER_AHEAD. */
    private int active;
    /** Files in state STREAMING: at most parallelFiles. */
    private int streamingNow;
    /** Bytes of the files offered and not streaming yet (OFFERED, PREPARING, READY): see {@link #OFFER_AHEAD_BYTES}. */
    private long waitingBytes;
    /** Files in state DONE (checked on every verdict: a count, not a scan of thousands of files). */
    private int filesDone;
    private long startNanos;
    private long written;
    private ScheduledFuture<?> helloTimeout;
    private ScheduledFuture<?> pacingWakeUp;
    private volatile String peer = "the receiver";
    /** Whether DATA content goes out as file regions (decided when the session begins). */
    private boolean zeroCopy;

    /** A session that sends {@code plan} with the shared {@link DiskThreads}. */
    public FileSendSession(SendPlan plan, SendSettings settings, ProgressListener progress) {
        this(plan, settings, progress, DiskThreads.shared());
    }

    FileSendSession(SendPlan plan, SendSettings settings, ProgressListener progress, Executor diskPool) {
        this.settings = settings;
        this.progress = progress;
        this.diskPool = diskPool;
        for (SendPlan.Entry entry : plan.entries()) {
            files.add(new Outgoing(files.size(), entry));
        }
    }

    /**
     * Sends only to a receiver that proves it holds {@code secret} ({@code --token-file}), proving in turn
     * that this sender holds it; call before {@link #addTo}. No file is offered before both proofs.
     *
     * @return this session
     */
    public FileSendSession useToken(SharedSecret secret) {
        this.token = secret;
        return this;
    }

    /** Adds the frame decoder and this session to a pipeline (after any TLS handler). */
    public void addTo(ChannelPipeline pipeline) {
        pipeline.addLast("ferry-frames", new FrameDecoder());
        pipeline.addLast("ferry-send", this);
    }

    /** Whether this session sends file content as file regions ({@code sendfile}); known once it began. */
    boolean sendsZeroCopy() {
        return zeroCopy;
    }

    /**
     * Completes with every file's outcome once each has a verdict, or with the reason the session
     * ended early (never exceptionally).
     */
    public CompletableFuture<SessionResult> result() {
        return result;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.loop = new LoopMailbox(ctx);
        if (ctx.channel().isActive()) {
            begin();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        begin();
        ctx.fireChannelActive();
    }

    private void begin() {
        if (startNanos != 0) {
            return;
        }
        startNanos = System.nanoTime();
        Channel ch = ctx.channel();
        zeroCopy = settings.zeroCopy() && ctx.pipeline().get(SslHandler.class) == null
                && (FerryChannels.isKernelSocket(ch) || (ch instanceof StripedChannel && ((StripedChannel) ch).carriesFileRegions()));
        if (zeroCopy && FerryChannels.isKernelSocket(ch)) {
            // Netty counts a region as 0 bytes: without this the channel would never push back
            ch.config().setMessageSizeEstimator(FerryChannels.FILE_REGIONS_COUNTED);
        }
        peer = "the receiver at " + Failures.address(ch.remoteAddress());
        progress.sessionStarted(files.size(), files.stream().mapToLong(Outgoing::size).sum());
        ctx.write(Frames.hello(ctx.alloc()));
        if (token != null) {
            senderNonce = SharedSecret.nonce();
        }
        ctx.write(Frames.senderAuth(ctx.alloc(), settings.checksum(), senderNonce));
        helloTimeout = ctx.executor().schedule(() -> {
            if (!helloReceived) {
                failSession(peer + " did not answer as a ferry receiver within " + settings.handshakeSeconds() + " s");
            } else if (!admitted) {
                failSession(peer + " did not complete the shared-secret handshake within " + settings.handshakeSeconds() + " s");
            }
        }, settings.handshakeSeconds(), TimeUnit.SECONDS);
        // Without a token the offers follow the hello at once; with one they wait for the receiver's proof.
        admitted = token == null;
        offerMore();
        loop.flush();
        checkDone();
    }

    /** The receiver's AUTH: whether it has a token, and its nonce. */
    private void onReceiverAuth(ByteBuf in) {
        if (receiverNonce != null) {
            failSession(peer + " sent a second AUTH frame");
            return;
        }
        int mode = in.readUnsignedByte();
        if (mode == MODE_TOKEN && in.readableBytes() == SharedSecret.NONCE_BYTES) {
            receiverNonce = new byte[SharedSecret.NONCE_BYTES];
            in.readBytes(receiverNonce);
            if (token == null) {
                failSession("the receiver refused this sender: it takes files only from senders holding its shared secret "
                        + "(--token-file)");
                return;
            }
            ctx.writeAndFlush(Frames.proof(ctx.alloc(), SENDER_PROOF, token.proof(SharedSecret.Role.SENDER, senderNonce, receiverNonce)));
        } else if (mode == MODE_OPEN) {
            if (token != null) {
                failSession(peer + " has no shared secret (it runs without --token-file): nothing sent, as --token-file sends "
                        + "only to a receiver that proves it holds the secret");
            }
        } else {
            failSession(peer + " sent an AUTH frame this sender does not understand (mode " + mode + ")");
        }
    }

    /** The receiver's PROOF: checked in constant time before any file is offered. */
    private void onReceiverProof(ByteBuf in) {
        if (token == null || receiverNonce == null || admitted) {
            failSession(peer + " sent a PROOF frame out of turn");
            return;
        }
        byte[] claimed = new byte[in.readableBytes()];
        in.readBytes(claimed);
        if (!token.verifies(SharedSecret.Role.RECEIVER, senderNonce, receiverNonce, claimed)) {
            failSession(peer + " does not hold this shared secret (--token-file): nothing sent");
            return;
        }
        admitted = true;
        helloTimeout.cancel(false);
        offerMore();
    }

    // ------------------------------------------------------------------ offers

    private void offerMore() {
        if (!admitted) {
            return;
        }
        while (nextToOffer < files.size() && active < settings.parallelFiles() + OFFER_AHEAD && !result.isDone()) {
            Outgoing file = files.get(nextToOffer);
            if (active >= settings.parallelFiles() && waitingBytes > 0 && waitingBytes + file.size() > OFFER_AHEAD_BYTES) {
                break; // offered again when a waiting file starts streaming or leaves
            }
            nextToOffer++;
            file.state = State.OFFERED;
            file.offeredNanos = System.nanoTime();
            active++;
            waitingBytes += file.size();
            ctx.write(Frames.offer(ctx.alloc(), file.id, file.size(), file.entry.name()));
        }
        loop.flush();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (result.isDone()) {
                return;
            }
            if (msg instanceof Hello) {
                onHello(((Hello) msg).version());
            } else if (msg instanceof Foreign) {
                Foreign foreign = (Foreign) msg;
                failSession(peer + " does not speak the ferry protocol (it sent '" + foreign.sample() + "')");
            } else if (msg instanceof Frame) {
                onFrame((Frame) msg);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onHello(int version) {
        helloReceived = true;
        if (admitted) {
            helloTimeout.cancel(false); // with a token it runs on until the receiver's proof
        }
        if (version != VERSION) {
            failSession(peer + " speaks ferry protocol version " + version + "; this sender speaks version " + VERSION
                    + " (use the same ferry version on both sides)");
        }
    }

    private void onFrame(Frame frame) {
        ByteBuf in = frame.payload;
        if (frame.type == RECEIVER_AUTH) {
            onReceiverAuth(in);
            return;
        }
        if (frame.type == RECEIVER_PROOF) {
            onReceiverProof(in);
            return;
        }
        if (!admitted) {
            // With a token nothing was offered yet: an ERROR now is the receiver refusing this sender.
            failSession(frame.type == ERROR ? "the receiver refused this sender: " + Frames.readText(in)
                    : peer + " sent frame type " + frame.type + " before the shared-secret handshake was done");
            return;
        }
        switch (frame.type) {
            case ACCEPT: {
                Outgoing file = file(in.readInt());
                int kind = in.readUnsignedByte();
                long offset = in.readLong();
                byte[] theirs = new byte[settings.checksum().length()];
                in.readBytes(theirs);
                if (file != null && file.state == State.OFFERED) {
                    file.state = State.PREPARING;
                    file.disk.execute(() -> prepare(file, kind, offset, theirs));
                }
                break;
            }
            case VERDICT: {
                Outgoing file = file(in.readInt());
                int status = in.readUnsignedByte();
                String message = Frames.readText(in);
                if (file != null && file.state != State.DONE) {
                    onVerdict(file, status, message);
                }
                break;
            }
            case ERROR:
                failSession("the receiver ended the session: " + Frames.readText(in));
                break;
            default:
                failSession(peer + " sent an unknown frame type " + frame.type);
        }
    }

    private Outgoing file(int id) {
        if (id < 0 || id >= files.size()) {
            failSession(peer + " named a file id " + id + " that was never offered");
            return null;
        }
        return files.get(id);
    }

    // ------------------------------------------------------------------ disk side

    /** On the file's disk queue: open it, check the receiver's prefix against ours, then start. */
    private void prepare(Outgoing file, int kind, long offset, byte[] theirs) {
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
            loop.post(() -> abortFile(file, message));
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
                    started(file, from, null, source);
                    hashed(file, remembered, true);
                });
                return;
            }
        }
        SourceFile source = file.source;
        loop.post(() -> started(file, from, complete, source));
        if (complete == null && zeroCopy) {
            file.disk.execute(() -> hashRest(file, from));
        }
    }

    /** Zero-copy, on the file's disk queue: hashes the content from {@code from} on, beside the sending. */
    private void hashRest(Outgoing file, long from) {
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
            loop.post(() -> abortFile(file, message));
            return;
        }
        byte[] sha256 = file.digest.digest();
        remember(file, sha256, from);
        loop.post(() -> hashed(file, sha256, false));
    }

    /** On the disk queue: keeps the digest of a whole file hashed from its start for the next send. */
    private void remember(Outgoing file, byte[] sha256, long hashedFrom) {
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
    private void checkUnchanged(Outgoing file) {
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
                abortFile(file, message);
            } else if (file.state == State.STREAMING && !result.isDone()) {
                endFile(file); // flushed with whatever else the disk threads posted (LoopMailbox)
            }
        });
    }

    private static long epochNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** On the file's disk queue: reads and hashes one chunk into a DATA frame. */
    private void read(Outgoing file, ByteBufAllocator alloc, long position, int length, boolean last) {
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
            loop.post(() -> abortFile(file, message));
            return;
        }
        byte[] sha256 = last && file.digest != null ? file.digest.digest() : null;
        if (last) {
            closeSource(file);
            if (sha256 != null) {
                remember(file, sha256, file.startOffset);
            }
        }
        loop.post(() -> chunkReady(file, frame, sha256));
    }

    private static void closeSource(Outgoing file) {
        if (file.source != null) {
            file.source.release(); // closed once the regions still queued are sent too
            file.source = null;
        }
    }

    /** A file open for reading, shared by the chunks and regions read from it; closed when the last lets go. */
    private static final class SourceFile extends AbstractReferenceCounted {
        final FileChannel channel;

        SourceFile(FileChannel channel) {
            this.channel = channel;
        }

        @Override
        protected void deallocate() {
            try {
                channel.close();
            } catch (IOException ignored) {
                // only read from
            }
        }

        @Override
        public ReferenceCounted touch(Object hint) {
            return this;
        }
    }

    /** A DATA frame's content sent with {@code sendfile}; holds its {@link SourceFile} open until released. */
    private static final class Region extends DefaultFileRegion {
        private final SourceFile source;

        Region(SourceFile source, long position, long count) {
            super(source.channel, position, count);
            this.source = source;
            source.retain();
        }

        @Override
        protected void deallocate() {
            source.release(); // not super's: that would close the channel the file's other regions use
        }
    }

    // ------------------------------------------------------------------ event loop side

    /** Prepared: a file with nothing left to send ends at once, any other waits for a streaming slot. */
    private void started(Outgoing file, long from, byte[] completeDigest, SourceFile source) {
        if (file.state != State.PREPARING || result.isDone()) {
            return;
        }
        file.startOffset = from;
        file.nextRead = from;
        file.regions = zeroCopy ? source : null;
        if (completeDigest != null) {
            progress.fileStarted(file.id, file.entry.name(), file.size(), from);
            ctx.write(Frames.start(ctx.alloc(), file.id, from));
            file.digestValue = completeDigest;
            endFile(file);
            loop.flush();
            return;
        }
        file.state = State.READY;
        readyToStream.add(file);
        streamNext();
    }

    /** Starts prepared files, in the order they became ready, while fewer than parallelFiles stream. */
    private void streamNext() {
        boolean began = false;
        while (streamingNow < settings.parallelFiles() && !result.isDone()) {
            Outgoing file = readyToStream.poll();
            if (file == null) {
                break;
            }
            if (file.state != State.READY) {
                continue; // refused or aborted while it waited
            }
            file.state = State.STREAMING;
            streamingNow++;
            waitingBytes -= file.size();
            progress.fileStarted(file.id, file.entry.name(), file.size(), file.startOffset);
            ctx.write(Frames.start(ctx.alloc(), file.id, file.startOffset));
            streaming.add(file);
            requestReads(file);
            began = true;
        }
        if (began) {
            offerMore(); // what streams now no longer counts against OFFER_AHEAD_BYTES
            pump();
            loop.flush();
        }
    }

    /** A file leaves its place among the offers (ended, refused or aborted): offer and stream the next ones. */
    private void released(Outgoing file, State was) {
        if (was == State.WAITING || was == State.ENDED || was == State.DONE) {
            return; // never offered, or its place was already given back
        }
        active--;
        if (was == State.STREAMING) {
            streamingNow--;
        } else if (was == State.OFFERED || was == State.PREPARING || was == State.READY) {
            waitingBytes -= file.size();
        }
        offerMore();
        streamNext();
    }

    /** The file's digest is known: from the cache, or hashed beside a zero-copy sending. */
    private void hashed(Outgoing file, byte[] sha256, boolean fromCache) {
        if ((file.state != State.STREAMING && file.state != State.READY) || result.isDone()) {
            return;
        }
        file.digestValue = sha256;
        file.cached = fromCache;
        maybeEnd(file);
    }

    /** Ends a file whose content was all handed to the channel and whose digest is known, if it did not change. */
    private void maybeEnd(Outgoing file) {
        if (file.contentDone && file.digestValue != null && file.state == State.STREAMING) {
            file.disk.execute(() -> checkUnchanged(file));
        }
    }

    private void requestReads(Outgoing file) {
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
            file.disk.execute(() -> read(file, alloc, position, length, last));
        }
    }

    private void chunkReady(Outgoing file, ByteBuf frame, byte[] sha256) {
        file.readsInFlight--;
        if (file.state != State.STREAMING || result.isDone()) {
            frame.release();
            return;
        }
        file.ready.add(frame);
        if (sha256 != null) {
            file.digestValue = sha256;
        }
        pump();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            pump();
        }
        ctx.fireChannelWritabilityChanged();
    }

    /** Moves ready chunks into the channel, round robin over the streaming files, while it is writable. */
    private void pump() {
        boolean wrote = false;
        while (ctx.channel().isWritable() && !streaming.isEmpty() && !result.isDone()) {
            if (settings.rateLimit() > 0 && paced()) {
                break;
            }
            Outgoing file = nextWithData();
            if (file == null) {
                break;
            }
            if (file.regions != null) {
                writeRegion(file);
                wrote = true;
                continue;
            }
            ByteBuf frame = file.ready.poll();
            int length = frame.readableBytes() - Frames.DATA_HEADER;
            written += length;
            wrote = true;
            ctx.write(frame).addListener(f -> {
                if (f.isSuccess()) {
                    file.sent += length;
                    progress.fileAdvanced(file.id, file.startOffset + file.sent);
                }
            });
            if (file.lastRead && file.readsInFlight == 0 && file.ready.isEmpty()) {
                streaming.remove(file);
                file.contentDone = true;
                maybeEnd(file);
            } else {
                requestReads(file);
            }
        }
        if (wrote) {
            loop.flush();
        }
    }

    private Outgoing nextWithData() {
        for (int i = 0; i < streaming.size(); i++) {
            Outgoing file = streaming.poll();
            streaming.add(file);
            if (!file.ready.isEmpty() || (file.regions != null && !file.lastRead)) {
                return file;
            }
        }
        return null;
    }

    /** Zero-copy: writes the next chunk of {@code file} as a DATA header and a region of the file. */
    private void writeRegion(Outgoing file) {
        long position = file.nextRead;
        int length = (int) Math.min(settings.chunkSize(), file.size() - position);
        file.nextRead += length;
        file.lastRead = file.nextRead == file.size();
        written += length;
        ctx.write(Frames.dataHeaderAlone(ctx.alloc(), file.id, length), ctx.voidPromise());
        ctx.write(new Region(file.regions, position, length)).addListener(f -> {
            if (f.isSuccess()) {
                file.sent += length;
                progress.fileAdvanced(file.id, file.startOffset + file.sent);
            }
        });
        if (file.lastRead) {
            streaming.remove(file);
            file.contentDone = true;
            maybeEnd(file);
        }
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

    private void endFile(Outgoing file) {
        State was = file.state;
        file.state = State.ENDED;
        ctx.write(Frames.end(ctx.alloc(), file.id, file.digestValue));
        released(file, was);
    }

    private void onVerdict(Outgoing file, int status, String message) {
        if (status != STATUS_STORED && status != STATUS_ALREADY_PRESENT && file.cached && settings.hashCache() != null) {
            file.disk.execute(() -> settings.hashCache().forget(file.entry.source())); // e.g. a digest that no longer matched
        }
        State was = file.state;
        FileOutcome.Status outcome = status == STATUS_STORED ? FileOutcome.Status.STORED
                : status == STATUS_ALREADY_PRESENT ? FileOutcome.Status.ALREADY_PRESENT : FileOutcome.Status.FAILED;
        if (outcome != FileOutcome.Status.FAILED && file.state != State.ENDED) {
            failSession(peer + " confirmed " + file.entry.name() + " before it was sent");
            return;
        }
        finish(file, outcome, outcome == FileOutcome.Status.FAILED ? "the receiver refused " + file.entry.name() + ": " + message : message);
        released(file, was);
        checkDone();
    }

    /** A local failure of one file (e.g. it vanished): tell the receiver and go on with the others. */
    private void abortFile(Outgoing file, String message) {
        if (file.state == State.DONE || result.isDone()) {
            return;
        }
        ctx.writeAndFlush(Frames.abort(ctx.alloc(), file.id, message));
        State was = file.state;
        finish(file, FileOutcome.Status.FAILED, message);
        released(file, was);
        checkDone();
    }

    private void finish(Outgoing file, FileOutcome.Status status, String message) {
        file.state = State.DONE;
        filesDone++;
        streaming.remove(file);
        releaseReady(file);
        file.disk.execute(() -> closeSource(file));
        long resumed = status == FileOutcome.Status.FAILED && file.startOffset == 0 ? 0 : file.startOffset;
        file.outcome = new FileOutcome(file.entry.name(), file.size(), file.sent, resumed, status, message,
                Optional.ofNullable(file.digestValue), settings.checksum(), Duration.ofNanos(System.nanoTime() - file.offeredNanos), Optional.empty());
        progress.fileFinished(file.id, status != FileOutcome.Status.FAILED);
    }

    private void checkDone() {
        if (result.isDone() || filesDone < files.size()) {
            return;
        }
        complete(Optional.empty());
        ctx.close();
    }

    private void failSession(String message) {
        if (result.isDone()) {
            return;
        }
        for (Outgoing file : files) {
            if (file.state != State.DONE) {
                finish(file, FileOutcome.Status.FAILED, message);
            }
        }
        complete(Optional.of(message));
        ctx.close();
    }

    private void complete(Optional<String> failure) {
        if (helloTimeout != null) {
            helloTimeout.cancel(false);
        }
        if (pacingWakeUp != null) {
            pacingWakeUp.cancel(false);
        }
        Optional<TransportStatistics> stats = Optional.empty();
        try {
            stats = Optional.of(FerryChannels.statistics(ctx.channel()));
        } catch (RuntimeException notAFerryChannel) {
            // e.g. an embedded channel in a test: no statistics
        }
        List<FileOutcome> outcomes = files.stream().map(f -> f.outcome).toList();
        HashCache cache = settings.hashCache();
        if (cache != null) {
            diskPool.execute(cache::flush); // what remember() left for later (ferry send also flushes before it exits)
        }
        progress.sessionFinished();
        result.complete(new SessionResult(outcomes, Duration.ofNanos(System.nanoTime() - startNanos), stats, failure));
    }

    private void releaseReady(Outgoing file) {
        for (ByteBuf b; (b = file.ready.poll()) != null; ) {
            b.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        long verified = files.stream().filter(f -> f.outcome != null && f.outcome.ok()).count();
        failSession("the connection to " + Failures.address(ctx.channel().remoteAddress()) + " closed before every file was verified ("
                + verified + " of " + files.size() + " files verified; sending again resumes)");
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        failSession(Failures.describe(cause));
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent && !((SslHandshakeCompletionEvent) evt).isSuccess()) {
            failSession(Failures.describe(((SslHandshakeCompletionEvent) evt).cause()));
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        for (Outgoing file : files) {
            releaseReady(file);
        }
    }
}
