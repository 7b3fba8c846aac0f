package io.ferry.cli.transfer;

import io.ferry.cli.progress.Sizes;
import io.ferry.cli.transfer.FrameDecoder.Foreign;
import io.ferry.cli.transfer.FrameDecoder.Frame;
import io.ferry.cli.transfer.FrameDecoder.Hello;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.quic.QuicTransport;
import io.ferry.transport.striped.StripedChannel;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.ArrayList;
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
 * <p><b>Eager start</b> (protocol 6; not under TLS): the files offered before the receiver's first answer
 * start at once, and one the receiver turns out to hold starts again from what it holds ({@link TransferProtocol}).
 * <b>Offers ahead:</b> files beyond those streaming are offered, accepted and opened ahead of their turn
 * ({@link OfferSchedule}), so a file's OFFER/ACCEPT round trip overlaps the streaming of the files before it.
 *
 * <p>Files are read and hashed on {@link DiskThreads} (one ordered queue per file), never on the event loop;
 * the event loop moves ready chunks into the channel only while it is writable ({@link ChunkWriter}), so the
 * memory in use is bounded by a few chunks per streaming file on any transport.
 *
 * <p><b>Zero-copy.</b> Where the channel writes a {@link io.netty.channel.FileRegion} to a kernel TCP socket
 * (plain TCP, or a striped channel of one TCP stream, and no {@link SslHandler}), each DATA frame is a small
 * header buffer followed by a {@link DefaultFileRegion} of the file, sent with {@code sendfile}; the checksum
 * is computed by reading the file once on its disk queue, beside the sending, and END waits for it. Elsewhere
 * chunks are read into buffers and hashed as they are read.
 *
 * <p><b>Hash cache.</b> With {@link SendSettings#hashCache()} a file whose size, modification time and file
 * key match a remembered digest is not hashed again ({@link HashCache}). Either way, when its content has
 * been handed to the channel the file's size and modification time are read again, and a file that changed
 * since it was opened fails (its digest would not describe what was sent); the receiver's verification of
 * the checksum catches what the modification time does not show.
 */
public final class FileSendSession extends ChannelInboundHandlerAdapter {

    private final List<OutgoingFile> files = new ArrayList<>();
    private final SendSettings settings;
    private final ProgressListener progress;
    private final Executor diskPool;
    /** What the disk threads hand to the event loop: files opened and hashed, chunks read, files checked. */
    private LoopMailbox loop;
    /** Opens, hashes, reads and checks the files on their disk queues (made with {@link #loop}). */
    private SendDisk disk;
    private final CompletableFuture<SessionResult> result = new CompletableFuture<>();
    private final OfferSchedule schedule;
    private final SentTree tree;

    private ChannelHandlerContext ctx;
    private SharedSecret token;
    private String identity;
    /** The AUTH step, from the session's start; offers go out once it {@link SenderAuth#admitted}. */
    private SenderAuth auth;
    private boolean helloReceived;
    /** Files in state DONE (checked on every verdict: a count, not a scan of thousands of files). */
    private int filesDone;
    private long startNanos;
    private ScheduledFuture<?> helloTimeout;
    /** Watches for the receiver's ALIVE frames ({@link Heartbeat}); when anything was last heard from it. */
    private ScheduledFuture<?> watch;
    private volatile long lastHeardNanos;
    /** The content bytes the receiver said it had taken (its last ALIVE). */
    private long receiverTaken;
    /** Moves the streaming files' chunks into the channel. */
    private ChunkWriter writer;
    private volatile String peer = "the receiver";
    /** Whether DATA content goes out as file regions (decided when the session begins). */
    private boolean zeroCopy;
    /** Whether the session ends its stream after its last END (not under TLS, whose close_notify ends it). */
    private boolean halfClose;
    /** Files this session sends nothing more for: ended, or done without an END (refused, aborted). */
    private int filesOver;
    private boolean outputEnded;
    /** Whether the receiver answered an offer yet (ACCEPT or VERDICT): files offered before are started eagerly. */
    private boolean answered;
    private boolean eagerStart;

    /** A session that sends {@code plan} with the shared {@link DiskThreads}. */
    public FileSendSession(SendPlan plan, SendSettings settings, ProgressListener progress) {
        this(plan, settings, progress, DiskThreads.shared());
    }

    FileSendSession(SendPlan plan, SendSettings settings, ProgressListener progress, Executor diskPool) {
        this.settings = settings;
        this.progress = progress;
        this.diskPool = diskPool;
        for (SendPlan.Entry entry : plan.entries()) {
            files.add(new OutgoingFile(files.size(), entry, diskPool));
        }
        this.schedule = new OfferSchedule(files, settings.parallelFiles());
        this.tree = new SentTree(plan.tree(), files.size());
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

    /**
     * The fingerprint ({@code sha256:HEX}) of the certificate this sender presents ({@code --cert}), named
     * in the error when a receiver's {@code --allow} refuses it.
     *
     * @return this session
     */
    public FileSendSession presenting(String certificateFingerprint) {
        this.identity = certificateFingerprint;
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
        this.disk = new SendDisk(settings, loop, new SendDisk.Results() {
            @Override
            public void started(OutgoingFile file, long from, byte[] completeDigest, SourceFile source) {
                FileSendSession.this.started(file, from, completeDigest, source);
            }

            @Override
            public void hashed(OutgoingFile file, byte[] sha256, boolean fromCache) {
                FileSendSession.this.hashed(file, sha256, fromCache);
            }

            @Override
            public void chunkRead(OutgoingFile file, ByteBuf frame, byte[] sha256) {
                writer.chunkRead(file, frame, sha256);
            }

            @Override
            public void unchanged(OutgoingFile file) {
                if (file.state == OutgoingFile.State.STREAMING && !result.isDone()) {
                    endFile(file);
                }
            }

            @Override
            public void failed(OutgoingFile file, String message) {
                abortFile(file, message);
            }
        });
        this.writer = new ChunkWriter(ctx, loop, settings, progress, disk, result::isDone, this::maybeEnd);
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
        writer.begin(startNanos);
        Channel ch = ctx.channel();
        boolean tls = ctx.pipeline().get(SslHandler.class) != null;
        zeroCopy = settings.zeroCopy() && !tls
                && (FerryChannels.isKernelSocket(ch) || (ch instanceof StripedChannel && ((StripedChannel) ch).carriesFileRegions()));
        if (zeroCopy && FerryChannels.isKernelSocket(ch)) {
            // Netty counts a region as 0 bytes: without this the channel would never push back
            ch.config().setMessageSizeEstimator(FerryChannels.FILE_REGIONS_COUNTED);
        }
        halfClose = ch instanceof DuplexChannel && !tls;
        // Not under TLS (QUIC is TLS too): a receiver refuses a sender's certificate after the sender's handshake is
        // done, and content already on its way would meet a reset before the refusal could be read.
        eagerStart = !tls && (ch instanceof StripedChannel ? ((StripedChannel) ch).members() : List.of(ch)).stream().noneMatch(FileSendSession::quic);
        peer = "the receiver at " + Failures.address(ch.remoteAddress());
        progress.sessionStarted(files.size(), files.stream().mapToLong(OutgoingFile::size).sum());
        ctx.write(Frames.hello(ctx.alloc()));
        auth = new SenderAuth(token);
        ctx.write(Frames.senderAuth(ctx.alloc(), settings.checksum(), auth.nonce()));
        helloTimeout = ctx.executor().schedule(() -> {
            if (!helloReceived) {
                failSession(peer + " did not answer as a ferry receiver within " + settings.handshakeSeconds() + " s");
            } else if (!auth.admitted()) {
                failSession(peer + " did not complete the shared-secret handshake within " + settings.handshakeSeconds() + " s");
            }
        }, settings.handshakeSeconds(), TimeUnit.SECONDS);
        // Without a token the offers follow the hello at once; with one they wait for the receiver's proof.
        offerMore();
        loop.flush();
        checkDone();
    }

    // ------------------------------------------------------------------ offers

    private void offerMore() {
        if (!admitted()) {
            return;
        }
        tree.sendOnce(ctx);
        for (OutgoingFile file; !result.isDone() && (file = schedule.nextOffer(System.nanoTime())) != null; ) {
            ctx.write(Frames.offer(ctx.alloc(), file.id, file.size(), file.entry.name(), file.entry.attributes()));
            if (eagerStart && !answered && file.size() > 0) {
                // Before the receiver's first answer: start it as new at once (EAGER), see TransferProtocol.
                file.eager = true;
                prepare(file, KIND_NEW, 0, null);
            }
        }
        loop.flush();
        maybeEndOutput(); // a send of directories and links only
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        lastHeardNanos = System.nanoTime();
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
        if (admitted()) {
            helloTimeout.cancel(false); // with a token it runs on until the receiver's proof
        }
        if (version != VERSION) {
            failSession(peer + " speaks ferry protocol version " + version + "; this sender speaks version " + VERSION
                    + " (use the same ferry version on both sides)");
        } else if (watch == null) {
            // a ferry receiver of this version: from now on it beats (ALIVE) once it has admitted this sender
            watch = Heartbeat.watch(ctx, () -> lastHeardNanos, silentMs -> receiverGone(
                    "stopped answering " + Sizes.seconds(silentMs / 1e3) + " ago"));
        }
    }

    private void onFrame(Frame frame) {
        ByteBuf in = frame.payload;
        if (frame.type == ALIVE) {
            receiverTaken = in.readLong();
            progress.receiverTook(receiverTaken);
            return;
        }
        if (frame.type == RECEIVER_AUTH) {
            String refused = auth.onReceiverAuth(in, peer,
                    proof -> ctx.writeAndFlush(Frames.proof(ctx.alloc(), SENDER_PROOF, proof)));
            if (refused != null) {
                failSession(refused);
            }
            return;
        }
        if (frame.type == RECEIVER_PROOF) {
            String refused = auth.onReceiverProof(in, peer);
            if (refused != null) {
                failSession(refused);
            } else {
                helloTimeout.cancel(false);
                offerMore();
            }
            return;
        }
        if (!admitted()) {
            // With a token nothing was offered yet: an ERROR now is the receiver refusing this sender.
            failSession(frame.type == ERROR ? "the receiver refused this sender: " + Frames.readText(in)
                    : peer + " sent frame type " + frame.type + " before the shared-secret handshake was done");
            return;
        }
        switch (frame.type) {
            case ACCEPT: {
                answered = true;
                OutgoingFile file = file(in.readInt());
                int kind = in.readUnsignedByte();
                long offset = in.readLong();
                byte[] theirs = new byte[settings.checksum().length()];
                in.readBytes(theirs);
                if (file == null || file.accepted) {
                    break;
                }
                file.accepted = true;
                if (file.state == OutgoingFile.State.OFFERED) {
                    prepare(file, kind, offset, theirs);
                } else if (file.eager) {
                    eagerAccepted(file, kind, offset, theirs);
                }
                break;
            }
            case VERDICT: {
                int id = in.readInt();
                if (tree.owns(id)) {
                    int status = in.readUnsignedByte();
                    tree.onVerdict(id, status, Frames.readText(in), settings.checksum());
                    checkDone();
                    break;
                }
                answered = true;
                OutgoingFile file = file(id);
                int status = in.readUnsignedByte();
                String message = Frames.readText(in);
                if (file != null && file.state != OutgoingFile.State.DONE) {
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

    private void prepare(OutgoingFile file, int kind, long offset, byte[] theirs) {
        file.state = OutgoingFile.State.PREPARING;
        file.disk.execute(() -> disk.prepare(file, kind, offset, theirs, zeroCopy));
    }

    /**
     * The ACCEPT of a file started eagerly: new there, its content stands; held there, it is prepared again from
     * that once its disk queue is done, and the receiver drops the eager content until the new START.
     */
    private void eagerAccepted(OutgoingFile file, int kind, long offset, byte[] theirs) {
        if (kind == KIND_NEW || file.state == OutgoingFile.State.ENDED || file.state == OutgoingFile.State.DONE) {
            writer.pump(); // past ChunkWriter.EAGER_BYTES it waited for this
            maybeEnd(file);
            return;
        }
        schedule.restarting(file, file.state);
        writer.remove(file);
        file.disk.execute(() -> {
            SendDisk.closeSource(file);
            loop.post(() -> {
                if (file.state == OutgoingFile.State.RESTARTING && !result.isDone()) {
                    file.restart();
                    prepare(file, kind, offset, theirs);
                }
            });
        });
        streamNext(); // its streaming slot goes to the next ready file
    }

    private static boolean quic(Channel member) {
        try {
            return QuicTransport.NAME.equals(FerryChannels.transportOf(member).name());
        } catch (IllegalArgumentException notFerrys) {
            return false;
        }
    }

    private boolean admitted() {
        return auth != null && auth.admitted();
    }

    private OutgoingFile file(int id) {
        if (id < 0 || id >= files.size()) {
            failSession(peer + " named a file id " + id + " that was never offered");
            return null;
        }
        return files.get(id);
    }

    // ------------------------------------------------------------------ event loop side

    /** Prepared: a file with nothing left to send ends at once, any other waits for a streaming slot. */
    private void started(OutgoingFile file, long from, byte[] completeDigest, SourceFile source) {
        if (file.state != OutgoingFile.State.PREPARING || result.isDone()) {
            return;
        }
        file.startOffset = from;
        file.nextRead = from;
        file.regions = zeroCopy ? source : null;
        if (completeDigest != null) { // (never eager: an eager file starts from 0 and is not empty)
            progress.fileStarted(file.id, file.entry.name(), file.size(), from);
            ctx.write(Frames.start(ctx.alloc(), file.id, from));
            file.digestValue = completeDigest;
            endFile(file);
            loop.flush();
            return;
        }
        schedule.ready(file);
        streamNext();
    }

    /** Starts prepared files, in the order they became ready, while fewer than parallelFiles stream. */
    private void streamNext() {
        boolean began = false;
        for (OutgoingFile file; !result.isDone() && (file = schedule.nextToStream()) != null; ) {
            progress.fileStarted(file.id, file.entry.name(), file.size(), file.startOffset);
            ctx.write(file.eager && !file.accepted ? Frames.eager(ctx.alloc(), file.id) : Frames.start(ctx.alloc(), file.id, file.startOffset));
            writer.add(file);
            began = true;
        }
        if (began) {
            offerMore(); // what streams now no longer counts against OFFER_AHEAD_BYTES
            writer.pump();
            loop.flush();
        }
    }

    /** A file leaves its place among the offers (ended, refused or aborted): offer and stream the next ones. */
    private void released(OutgoingFile file, OutgoingFile.State was) {
        if (!schedule.released(file, was)) {
            return; // never offered, or its place was already given back
        }
        offerMore();
        streamNext();
    }

    /** The file's digest is known: from the cache, or hashed beside a zero-copy sending. */
    private void hashed(OutgoingFile file, byte[] sha256, boolean fromCache) {
        if ((file.state != OutgoingFile.State.STREAMING && file.state != OutgoingFile.State.READY) || result.isDone()) {
            return;
        }
        file.digestValue = sha256;
        file.cached = fromCache;
        maybeEnd(file);
    }

    /** Ends a file whose content was all handed to the channel and whose digest is known, if it did not change. */
    private void maybeEnd(OutgoingFile file) {
        if (file.contentDone && file.digestValue != null && file.state == OutgoingFile.State.STREAMING && file.accepted) {
            file.disk.execute(() -> disk.checkUnchanged(file));
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            writer.pump();
        }
        ctx.fireChannelWritabilityChanged();
    }

    private void endFile(OutgoingFile file) {
        OutgoingFile.State was = file.state;
        file.state = OutgoingFile.State.ENDED;
        ctx.write(Frames.end(ctx.alloc(), file.id, file.digestValue));
        filesOver++;
        released(file, was);
        maybeEndOutput();
    }

    /**
     * After the last file's END the sender ends its stream, once everything before it is written: the end
     * of stream reaches the receiver behind the data and is acknowledged with it, so the close after the
     * last verdict does not wait another round trip for it.
     */
    private void maybeEndOutput() {
        if (!halfClose || outputEnded || result.isDone() || filesOver < files.size() || !tree.sent()) {
            return;
        }
        outputEnded = true;
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(written -> {
            if (written.isSuccess() && ctx.channel().isActive()) {
                ((DuplexChannel) ctx.channel()).shutdownOutput();
            }
        });
    }

    private void onVerdict(OutgoingFile file, int status, String message) {
        if (status != STATUS_STORED && status != STATUS_ALREADY_PRESENT && file.cached && settings.hashCache() != null) {
            file.disk.execute(() -> settings.hashCache().forget(file.entry.source())); // e.g. a digest that no longer matched
        }
        OutgoingFile.State was = file.state;
        FileOutcome.Status outcome = status == STATUS_STORED ? FileOutcome.Status.STORED
                : status == STATUS_ALREADY_PRESENT ? FileOutcome.Status.ALREADY_PRESENT : FileOutcome.Status.FAILED;
        if (outcome != FileOutcome.Status.FAILED && file.state != OutgoingFile.State.ENDED) {
            failSession(peer + " confirmed " + file.entry.name() + " before it was sent");
            return;
        }
        finish(file, outcome, outcome == FileOutcome.Status.FAILED ? "the receiver refused " + file.entry.name() + ": " + message : message);
        released(file, was);
        maybeEndOutput();
        checkDone();
    }

    /** A local failure of one file (e.g. it vanished): tell the receiver and go on with the others. */
    private void abortFile(OutgoingFile file, String message) {
        if (file.state == OutgoingFile.State.DONE || result.isDone()) {
            return;
        }
        if (!outputEnded) {
            ctx.writeAndFlush(Frames.abort(ctx.alloc(), file.id, message));
        }
        OutgoingFile.State was = file.state;
        finish(file, FileOutcome.Status.FAILED, message);
        released(file, was);
        maybeEndOutput();
        checkDone();
    }

    private void finish(OutgoingFile file, FileOutcome.Status status, String message) {
        if (file.state != OutgoingFile.State.ENDED) {
            filesOver++;
        }
        long resumed = status == FileOutcome.Status.FAILED && file.startOffset == 0 ? 0 : file.startOffset;
        file.outcome = new FileOutcome(file.entry.name(), file.size(), file.sent, resumed, status, message,
                Optional.ofNullable(file.digestValue), settings.checksum(), file.elapsed(System.nanoTime()), Optional.empty());
        file.state = OutgoingFile.State.DONE;
        filesDone++;
        writer.remove(file);
        file.releaseReady();
        file.disk.execute(() -> SendDisk.closeSource(file));
        progress.fileFinished(file.id, status != FileOutcome.Status.FAILED);
    }

    private void checkDone() {
        if (result.isDone() || filesDone < files.size() || !tree.done()) {
            return;
        }
        complete(Optional.empty());
        ctx.close();
    }

    private void failSession(String message) {
        if (result.isDone()) {
            return;
        }
        for (OutgoingFile file : files) {
            if (file.state != OutgoingFile.State.DONE) {
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
        if (watch != null) {
            watch.cancel(false);
        }
        if (writer != null) {
            writer.stop();
        }
        Optional<TransportStatistics> stats = Optional.empty();
        try {
            stats = Optional.of(FerryChannels.statistics(ctx.channel()));
        } catch (RuntimeException notAFerryChannel) {
            // e.g. an embedded channel in a test: no statistics
        }
        List<FileOutcome> outcomes = new ArrayList<>(files.stream().map(f -> f.outcome).toList());
        outcomes.addAll(tree.failures());
        HashCache cache = settings.hashCache();
        if (cache != null) {
            diskPool.execute(cache::flush); // what remember() left for later (ferry send also flushes before it exits)
        }
        progress.sessionFinished();
        result.complete(new SessionResult(outcomes, Duration.ofNanos(System.nanoTime() - startNanos), stats, failure));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        long verified = files.stream().filter(f -> f.outcome != null && f.outcome.ok()).count();
        if (helloReceived) {
            receiverGone("closed the connection with " + verified + " of " + files.size() + " files verified");
        } else {
            failSession(beforeAnswer("the connection to " + Failures.address(ctx.channel().remoteAddress())
                    + " closed before every file was verified (" + verified + " of " + files.size() + " files verified; sending again resumes)"));
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        String lost = Failures.connectionLost(cause);
        if (lost != null && helloReceived) {
            receiverGone(lost);
            return;
        }
        String why = Failures.describe(cause, identity);
        failSession(Failures.explains(cause) ? why : beforeAnswer(why));
    }

    /**
     * The receiver went away mid-session (a reset, a broken pipe, or silence; {@code how} says which): one
     * line with what it had taken, and the connection dropped at once rather than closed politely to a peer
     * that is not there.
     */
    private void receiverGone(String how) {
        if (result.isDone()) {
            return;
        }
        long total = files.stream().mapToLong(OutgoingFile::size).sum();
        String message = peer + " " + how + "; it kept the " + Sizes.bytes(receiverTaken) + " of " + Sizes.bytes(total)
                + " it had taken, and sending again resumes from there";
        failSession(message);
        FerryChannels.abort(ctx.channel());
    }

    /** Lost before the receiver's hello: a receiver of another version closes on ours, maybe before its answer is read. */
    private String beforeAnswer(String what) {
        return helloReceived ? what : peer + " ended the connection before it answered as a ferry receiver (" + what + "); a ferry "
                + "receiver of another protocol version does that to a version-" + VERSION + " sender: use the same ferry version on both sides";
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent && !((SslHandshakeCompletionEvent) evt).isSuccess()) {
            failSession(Failures.describe(((SslHandshakeCompletionEvent) evt).cause(), identity));
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        for (OutgoingFile file : files) {
            file.releaseReady();
        }
    }
}
