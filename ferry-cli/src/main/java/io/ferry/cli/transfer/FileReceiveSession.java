package io.ferry.cli.transfer;

import io.ferry.cli.transfer.FrameDecoder.Foreign;
import io.ferry.cli.transfer.FrameDecoder.Frame;
import io.ferry.cli.transfer.FrameDecoder.Hello;
import io.ferry.transport.FerryChannels;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.ferry.cli.transfer.TransferProtocol.*;

/**
 * The receiving side of a ferry session: accepts each offered file with what is already here (for
 * resuming), writes and hashes its content on {@link DiskThreads}, renames it into place only when
 * the sender's checksum ({@link Checksum}) matches, and answers each file with a verdict.
 *
 * <p>Backpressure: content waiting for the disk is counted; above a high-water mark the channel stops
 * reading ({@code autoRead} off), so the transport's window closes and the sender stops, and reading
 * resumes below a low-water mark.
 */
public final class FileReceiveSession extends ChannelInboundHandlerAdapter {

    private static final long HIGH_WATER = 16 << 20;
    private static final long LOW_WATER = 4 << 20;
    private static final int MAX_OPEN_FILES = 256;
    /**
     * Targets being received right now by any session of this process, with the session receiving
     * each: two senders never share a partial file.
     */
    private static final ConcurrentHashMap<Path, FileReceiveSession> IN_USE = new ConcurrentHashMap<>();
    /** The default of how long a sender may stay silent before a new sender of the same file takes it over. */
    public static final Duration DEFAULT_TAKEOVER = Duration.ofSeconds(15);
    /** How long an offer waits for a silent sender's session to let go of the file it takes over. */
    private static final long CLAIM_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final ReceivingDirectory directory;
    private final boolean overwrite;
    private final ReceiverEvents events;
    private final Executor diskPool;
    private final long takeoverNanos;
    private final SenderLimits limits;
    private final Map<Integer, Open> open = new HashMap<>();
    /** Offers waiting for a silent sender's session to let go of their file, and whether EAGER content was dropped meanwhile. */
    private final Map<Integer, Boolean> claiming = new HashMap<>();
    /** When this session last received anything from its sender. */
    private volatile long lastHeardNanos = System.nanoTime();
    private final AtomicLong waitingForDisk = new AtomicLong();
    /** Whether reading is paused because too much content waits for the disk (only then is a resume posted). */
    private volatile boolean paused;
    /** What the disk threads hand to the event loop: accepts, verdicts, failures, resuming reads. */
    private LoopMailbox loop;

    private ChannelHandlerContext ctx;
    private String peer = "a sender";
    private SharedSecret token;
    /** The AUTH step: who may send, and the session's checksum (made when the session is added to a channel). */
    private ReceiverAuth auth;
    /** The only checksum this receiver takes, or {@code null} for either. */
    private Checksum requiredChecksum;
    private boolean helloSeen;
    private boolean ended;
    private boolean anyFailed;
    /** The sender ended its stream: once the files whose END arrived have their verdicts, the session closes. */
    private boolean senderDone;

    /** A file and its disk queue. */
    private final class Open {
        final IncomingFile file;
        final FileAttributes attributes;
        final SerialExecutor disk = new SerialExecutor(diskPool);
        volatile boolean failed;
        /** Whether the sender's END for it arrived (on the event loop). */
        boolean endSeen;

        Open(IncomingFile file, FileAttributes attributes) {
            this.file = file;
            this.attributes = attributes;
        }
    }

    /** The directories and links of the sender's trees, made on their own disk queue. */
    private ReceivedTree tree;
    private SerialExecutor treeDisk;
    /** ENTRY frames whose verdict is not sent yet (on the event loop). */
    private int entriesPending;
    private boolean treeFinished;
    /** The ALIVE frames, once the sender is admitted; the content bytes taken in so far (on the event loop). */
    private io.netty.util.concurrent.ScheduledFuture<?> heartbeat;
    private long taken;

    /**
     * @param directory where files are stored (must exist)
     * @param overwrite whether a file with different content may be replaced
     */
    public FileReceiveSession(Path directory, boolean overwrite, ReceiverEvents events) {
        this(directory, overwrite, events, DEFAULT_TAKEOVER);
    }

    /**
     * @param takeover how long a sender may send nothing before a new sender offering one of the
     *                 files it is sending takes that file over: its session is aborted and the new
     *                 sender resumes from what was received. Over a transport without resets (uTP,
     *                 UDT) a killed sender otherwise holds its files until the transport's idle timeout.
     */
    public FileReceiveSession(Path directory, boolean overwrite, ReceiverEvents events, Duration takeover) {
        this(directory, overwrite, events, DiskThreads.shared(), takeover, SenderLimits.NONE);
    }

    /**
     * @param limits how much one sender may store, shared by every session of the receiver
     */
    public FileReceiveSession(Path directory, boolean overwrite, ReceiverEvents events, Duration takeover, SenderLimits limits) {
        this(directory, overwrite, events, DiskThreads.shared(), takeover, limits);
    }

    FileReceiveSession(Path directory, boolean overwrite, ReceiverEvents events, Executor diskPool, Duration takeover,
                       SenderLimits limits) {
        this.limits = limits;
        this.directory = new ReceivingDirectory(directory.toAbsolutePath().normalize());
        this.overwrite = overwrite;
        this.events = events;
        this.diskPool = diskPool;
        if (takeover.isNegative()) {
            throw new IllegalArgumentException("the takeover time must not be negative: " + takeover);
        }
        this.takeoverNanos = takeover.toNanos();
        this.tree = new ReceivedTree(this.directory);
        this.treeDisk = new SerialExecutor(diskPool);
    }

    /**
     * Lets in only senders that prove they hold {@code secret} ({@code --token-file}); call before
     * {@link #addTo}. A sender without it, or with another, is refused before it can offer a file.
     *
     * @return this session
     */
    public FileReceiveSession requireToken(SharedSecret secret) {
        this.token = secret;
        return this;
    }

    /**
     * Lets in only senders that check content with {@code required} ({@code ferry receive --checksum}); call
     * before {@link #addTo}. A sender with another is refused before it can offer a file.
     *
     * @return this session
     */
    public FileReceiveSession requireChecksum(Checksum required) {
        this.requiredChecksum = required;
        return this;
    }

    /** Adds the frame decoder and this session to a pipeline (after any TLS handler). */
    public void addTo(ChannelPipeline pipeline) {
        pipeline.addLast("ferry-frames", new FrameDecoder());
        pipeline.addLast("ferry-receive", this);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.auth = new ReceiverAuth(token, requiredChecksum);
        this.loop = new LoopMailbox(ctx);
        peer = "the sender at " + Failures.address(ctx.channel().remoteAddress());
        // a sender's end of stream means no more frames: the files it ended still get their verdicts (onSenderDone)
        ctx.channel().config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        peer = "the sender at " + Failures.address(ctx.channel().remoteAddress());
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        lastHeardNanos = System.nanoTime();
        try {
            if (ended) {
                return;
            }
            if (msg instanceof Hello) {
                onHello(((Hello) msg).version());
            } else if (msg instanceof Foreign) {
                Foreign foreign = (Foreign) msg;
                String why = foreign.looksLikeTls()
                        ? peer + " started TLS, but this receiver runs without --tls"
                        : peer + " does not speak the ferry protocol (it sent '" + foreign.sample() + "')";
                ctx.write(Frames.hello(ctx.alloc()));
                endSession(why, "this is a ferry receiver (protocol version " + VERSION + "); " + why);
            } else if (msg instanceof Frame) {
                onFrame((Frame) msg);
            }
        } catch (RuntimeException e) {
            endSession(peer + " broke the ferry protocol: " + e.getMessage(), "protocol error: " + e.getMessage());
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onHello(int version) {
        helloSeen = true;
        if (version == 1) {
            String why = peer + " speaks ferry protocol version 1; this receiver speaks version " + VERSION + " (upgrade the sender)";
            ended = true;
            events.failed(why);
            ctx.writeAndFlush(Frames.versionOneRefusal(ctx.alloc(), "this receiver speaks ferry protocol version " + VERSION
                    + "; upgrade the sender")).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.write(Frames.hello(ctx.alloc()));
        if (version != VERSION) {
            endSession(peer + " speaks ferry protocol version " + version + "; this receiver speaks version " + VERSION,
                    "this receiver speaks ferry protocol version " + VERSION);
            return;
        }
        ctx.writeAndFlush(Frames.receiverAuth(ctx.alloc(), auth.nonce()));
    }

    /** Ends the session if the AUTH step refused the sender ({@code refusal} not null); nothing else is read before it. */
    private void authStep(ReceiverAuth.Refusal refusal) {
        if (refusal != null) {
            endSession(refusal.log(), refusal.toSender());
        } else if (auth.admitted() && heartbeat == null) {
            heartbeat = Heartbeat.beat(ctx, () -> {
                events.took(peer, taken);
                return taken;
            });
        }
    }

    private void onFrame(Frame frame) {
        ByteBuf in = frame.payload;
        if (!helloSeen) {
            throw new IllegalStateException("frame before hello");
        }
        if (frame.type == SENDER_AUTH) {
            authStep(auth.onSenderAuth(in, peer));
            return;
        }
        if (frame.type == SENDER_PROOF) {
            authStep(auth.onSenderProof(in, peer, proof -> ctx.writeAndFlush(Frames.proof(ctx.alloc(), RECEIVER_PROOF, proof))));
            return;
        }
        if (!auth.admitted()) {
            throw new IllegalStateException("frame type " + frame.type + " before the sender was admitted (AUTH"
                    + (auth.hasToken() ? ", PROOF" : "") + " first)");
        }
        switch (frame.type) {
            case OFFER: {
                int id = in.readInt();
                long size = in.readLong();
                String name = Frames.readText(in);
                FileAttributes attributes = new FileAttributes(in.readUnsignedShort(), in.readLong());
                onOffer(id, size, name, attributes);
                break;
            }
            case ENTRY: {
                int id = in.readInt();
                int kind = in.readUnsignedByte();
                FileAttributes attributes = new FileAttributes(in.readUnsignedShort(), in.readLong());
                String name = Frames.readText(in);
                onEntry(id, kind, name, Frames.readText(in), attributes);
                break;
            }
            case START:
            case EAGER: {
                int id = in.readInt();
                Open f = open.get(id);
                long offset = frame.type == START ? in.readLong() : -1; // EAGER: from 0, if accepted as new
                if (f == null && offset < 0) {
                    claiming.computeIfPresent(id, (k, dropped) -> true); // then not accepted as new: sent again
                } else if (f != null) {
                    f.disk.execute(() -> onDisk(f, () -> {
                        if (offset >= 0 ? f.file.start(offset) : f.file.startEager()) {
                            events.fileStarted(peer, f.file.name, f.file.size, f.file.resumedFrom());
                        }
                    }));
                }
                break;
            }
            case DATA: {
                Open f = open.get(in.readInt());
                if (f == null || f.failed) {
                    break; // content of a file already refused: dropped
                }
                ByteBuf content = in.retainedSlice();
                int length = content.readableBytes();
                taken += length;
                if (waitingForDisk.addAndGet(length) > HIGH_WATER && ctx.channel().config().isAutoRead()) {
                    paused = true;
                    ctx.channel().config().setAutoRead(false);
                }
                f.disk.execute(() -> {
                    try {
                        onDisk(f, () -> f.file.write(content));
                    } finally {
                        content.release();
                        if (waitingForDisk.addAndGet(-length) < LOW_WATER && paused) {
                            loop.post(this::resumeReading);
                        }
                    }
                });
                break;
            }
            case END: {
                Open f = open.get(in.readInt());
                byte[] theirs = new byte[auth.checksum().length()];
                in.readBytes(theirs);
                if (f != null) {
                    f.endSeen = true;
                    f.disk.execute(() -> onDisk(f, () -> {
                        int status = f.file.finish(theirs);
                        if (status == STATUS_STORED || status == STATUS_ALREADY_PRESENT) {
                            f.attributes.applyTo(f.file.target, false);
                        }
                        storedOrPresent(f, status);
                    }));
                }
                break;
            }
            case ABORT: {
                Open f = open.remove(in.readInt());
                String reason = Frames.readText(in);
                if (f != null) {
                    anyFailed = true;
                    f.failed = true;
                    f.disk.execute(() -> {
                        f.file.close();
                        IN_USE.remove(f.file.target, this);
                    });
                    events.fileFailed(peer, f.file.name, peer + " gave up on " + f.file.name + ": " + reason);
                }
                closeIfSenderDone();
                break;
            }
            default:
                throw new IllegalStateException("unknown frame type " + frame.type);
        }
    }

    private void onOffer(int id, long size, String name, FileAttributes attributes) {
        if (open.containsKey(id)) {
            throw new IllegalStateException("file id " + id + " offered twice");
        }
        if (size < 0) {
            refuse(id, name, "negative size " + size + " for " + name);
            return;
        }
        if (open.size() >= MAX_OPEN_FILES) {
            refuse(id, name, "more than " + MAX_OPEN_FILES + " files in flight on one connection");
            return;
        }
        Path target;
        try {
            target = SafeNames.resolve(directory.path(), name);
        } catch (SafeNames.UnsafeNameException e) {
            refuse(id, name, e.getMessage());
            return;
        }
        Optional<String> overLimit = limits.reserve(ctx.channel().remoteAddress(), target, name, size);
        if (overLimit.isPresent()) {
            refuse(id, name, overLimit.get());
            return;
        }
        FileReceiveSession owner = IN_USE.putIfAbsent(target, this);
        if (owner != null) {
            long silentNanos = System.nanoTime() - owner.lastHeardNanos;
            if (owner != this && silentNanos >= takeoverNanos) {
                owner.giveUp(name, silentNanos, peer);
                claiming.put(id, false);
                awaitClaim(id, size, name, attributes, target, System.nanoTime() + CLAIM_WAIT_NANOS);
            } else {
                refuse(id, name, name + " is being received from another sender right now (it last sent data "
                        + seconds(silentNanos) + " ago; a sender silent for " + seconds(takeoverNanos) + " gives way)");
            }
            return;
        }
        claimed(id, size, name, attributes, target);
    }

    /** A directory or link of the sender's tree: made on the tree's disk queue, answered with a verdict. */
    private void onEntry(int id, int kind, String name, String target, FileAttributes attributes) {
        Path path;
        try {
            path = SafeNames.resolve(directory.path(), name);
        } catch (SafeNames.UnsafeNameException e) {
            refuse(id, name, e.getMessage());
            return;
        }
        if (kind != ENTRY_DIRECTORY && kind != ENTRY_LINK) {
            refuse(id, name, name + ": unknown entry kind " + kind);
            return;
        }
        Optional<String> overLimit = limits.reserve(ctx.channel().remoteAddress(), path, name, 0); // --max-files counts them too
        if (overLimit.isPresent()) {
            refuse(id, name, overLimit.get());
            return;
        }
        entriesPending++;
        treeDisk.execute(() -> {
            String failure = null;
            try {
                if (kind == ENTRY_DIRECTORY) {
                    tree.directory(name, path, attributes);
                } else {
                    tree.link(name, path, target, attributes);
                }
            } catch (IOException | RuntimeException e) {
                failure = e instanceof IncomingFile.RefusedException ? e.getMessage()
                        : "cannot make " + name + ": " + (e instanceof IOException ? Failures.reason((IOException) e) : e.toString());
            }
            String why = failure;
            loop.post(() -> {
                entriesPending--;
                if (why == null) {
                    ctx.write(Frames.verdict(ctx.alloc(), id, STATUS_STORED, (kind == ENTRY_DIRECTORY ? "directory " : "link ") + name));
                } else {
                    refuse(id, name, why);
                }
                closeIfSenderDone();
            });
        });
    }

    /** Waits on this session's loop for a silent sender's session to release {@code target}, then takes it. */
    private void awaitClaim(int id, long size, String name, FileAttributes attributes, Path target, long deadlineNanos) {
        if (ended) {
            return;
        }
        if (IN_USE.putIfAbsent(target, this) == null) {
            claimed(id, size, name, attributes, target);
        } else if (System.nanoTime() >= deadlineNanos) {
            claiming.remove(id);
            refuse(id, name, name + " is still held by a silent sender's session");
        } else {
            ctx.executor().schedule(() -> awaitClaim(id, size, name, attributes, target, deadlineNanos), 20, TimeUnit.MILLISECONDS);
        }
    }

    /** A sender that has gone silent loses its session to a new sender of {@code name}. */
    private void giveUp(String name, long silentNanos, String newcomer) {
        ctx.executor().execute(() -> {
            if (ended) {
                return;
            }
            events.fileFailed(peer, name, peer + " sent nothing for " + seconds(silentNanos) + " while " + newcomer.replaceFirst("^the ", "the new ")
                    + " offered " + name + ": its session is ended, and the new sender resumes from the data kept");
            FerryChannels.abort(ctx.channel());
        });
    }

    private static String seconds(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.1f s", nanos / 1e9);
    }

    private void claimed(int id, long size, String name, FileAttributes attributes, Path target) {
        Open f = new Open(new IncomingFile(id, name, size, target, overwrite, auth.checksum()), attributes);
        open.put(id, f);
        boolean eagerDropped = Boolean.TRUE.equals(claiming.remove(id));
        f.disk.execute(() -> onDisk(f, () -> {
            IncomingFile.Accept accept = f.file.prepare(directory, eagerDropped);
            loop.post(() -> ctx.write(Frames.accept(ctx.alloc(), id, accept.kind(), accept.offset(), auth.checksum(), accept.checksum())));
        }));
    }

    /** An operation on a file's disk queue, with its failures turned into verdicts. */
    private interface DiskStep {
        void run() throws IOException;
    }

    private void onDisk(Open f, DiskStep step) {
        if (f.failed) {
            return;
        }
        try {
            step.run();
        } catch (IOException | RuntimeException e) {
            f.failed = true;
            f.file.close();
            IN_USE.remove(f.file.target, FileReceiveSession.this);
            loop.post(() -> fileFailed(f, e));
        }
    }

    private void fileFailed(Open f, Exception e) {
        open.remove(f.file.id);
        if (e instanceof IncomingFile.ProtocolViolation) {
            endSession(peer + " broke the ferry protocol: " + e.getMessage(), "protocol error: " + e.getMessage());
        } else if (e instanceof IncomingFile.RefusedException) {
            refuse(f.file.id, f.file.name, e.getMessage());
        } else if (e instanceof IOException && Failures.isDiskFull(e)) {
            String why = "the receiver's disk is full: cannot write " + f.file.name + " (" + Failures.reason((IOException) e) + "); "
                    + f.file.position() + " bytes kept in " + f.file.partial.getFileName() + " for a resume once there is space";
            endSession(why, why);
        } else {
            String reason = e instanceof IOException ? Failures.reason((IOException) e) : e.toString();
            refuse(f.file.id, f.file.name, "cannot store " + f.file.name + ": " + reason);
        }
        closeIfSenderDone();
    }

    private void storedOrPresent(Open f, int status) {
        IN_USE.remove(f.file.target, this);
        FileOutcome outcome = new FileOutcome(f.file.name, f.file.size, f.file.size - f.file.resumedFrom(), f.file.resumedFrom(),
                status == STATUS_STORED ? FileOutcome.Status.STORED : FileOutcome.Status.ALREADY_PRESENT,
                status == STATUS_STORED ? "stored" : "already present", Optional.of(f.file.checksumValue), auth.checksum(),
                Duration.ofNanos(System.nanoTime() - f.file.startNanos), Optional.of(f.file.target));
        String message = (status == STATUS_STORED ? "stored " : "already present: ") + f.file.name + " " + auth.checksum().label() + "="
                + outcome.digestHex();
        loop.post(() -> {
            open.remove(f.file.id);
            ctx.write(Frames.verdict(ctx.alloc(), f.file.id, status, message));
            events.stored(outcome);
            closeIfSenderDone();
        });
    }

    private void refuse(int id, String name, String message) {
        anyFailed = true;
        events.fileFailed(peer, name, message);
        ctx.writeAndFlush(Frames.verdict(ctx.alloc(), id, STATUS_FAILED, message));
    }

    /** Reads again once the disk caught up; not after the sender's end (epoll_ctl ENOENT failed such sessions). */
    private void resumeReading() {
        if (waitingForDisk.get() < LOW_WATER && !ctx.channel().config().isAutoRead() && !ended) {
            paused = false;
            if (!senderDone) {
                ctx.channel().config().setAutoRead(true);
            }
        }
    }

    /** Ends the session: tells the sender why (if it can read it) and closes. */
    private void endSession(String logMessage, String toSender) {
        if (ended) {
            return;
        }
        ended = true;
        anyFailed = true;
        events.failed(logMessage);
        LingeringClose.after(ctx, ctx.writeAndFlush(Frames.error(ctx.alloc(), toSender))); // so that the sender reads it
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (heartbeat != null) {
            heartbeat.cancel(false);
        }
        if (!treeFinished && open.isEmpty() && entriesPending == 0 && auth != null && auth.admitted()) {
            // a sender under TLS closes once every verdict is in, without ending its stream first
            treeFinished = true;
            treeDisk.execute(() -> tree.finish().forEach(events::failed));
        }
        open.values().forEach(this::keepPartial);
        open.clear();
        ended = true;
        events.sessionEnded(peer, !anyFailed && auth.admitted());
        ctx.fireChannelInactive();
    }

    /** A file the sender will send no more of: what arrived stays in its partial file, for a resume. */
    private void keepPartial(Open f) {
        f.failed = true;
        anyFailed = true;
        events.fileFailed(peer, f.file.name, "connection from " + peer.replaceFirst("^the sender at ", "") + " ended after " + f.file.position()
                + " of " + f.file.size + " bytes of " + f.file.name + "; the data is kept in " + f.file.partial.getFileName()
                + " and a new send resumes from it");
        f.disk.execute(() -> {
            f.file.close();
            IN_USE.remove(f.file.target, this);
        });
    }

    /** The sender ended its stream: the files it ended get their verdicts, then the session closes. */
    private void onSenderDone() {
        senderDone = true;
        open.values().removeIf(f -> {
            if (!f.endSeen) {
                keepPartial(f);
            }
            return !f.endSeen;
        });
        closeIfSenderDone();
    }

    private void closeIfSenderDone() {
        if (senderDone && open.isEmpty() && entriesPending == 0 && ctx.channel().isActive() && !treeFinished) {
            // the directories' modes and times last: files written into them would change their times
            treeFinished = true;
            treeDisk.execute(() -> {
                List<String> failures = tree.finish();
                loop.post(() -> {
                    failures.forEach(events::failed);
                    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                });
            });
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent && !senderDone) {
            onSenderDone();
        }
        if (evt instanceof SslHandshakeCompletionEvent && !((SslHandshakeCompletionEvent) evt).isSuccess() && !ended) {
            ended = true;
            anyFailed = true;
            events.failed("TLS with " + peer + " failed: " + Failures.describe(((SslHandshakeCompletionEvent) evt).cause()));
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!ended) {
            ended = true;
            anyFailed = true;
            events.failed("session with " + peer + " failed: " + Failures.describe(cause));
        }
        ctx.close();
    }
}
