package io.ferry.transport.striped;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.UndeliveredDataException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.FileRegion;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.ChannelOutputShutdownException;
import io.netty.util.concurrent.Future;

import java.io.IOException;
import java.net.ProtocolException;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One byte stream carried by N member connections of a Ferry transport (see
 * {@link io.ferry.transport.FerryChannelOption#STREAMS}). To the application it is an ordinary
 * connection: ordered, reliable bytes, writability backpressure, auto-read, half-close, abort, statistics.
 *
 * <p>The writer cuts the stream into blocks tagged with their offset and puts each on whichever member
 * can take it now, so a faster member carries more. The reader puts the members' blocks back in order;
 * the out-of-order bytes it holds are bounded: past {@link #REORDER_LIMIT} it stops reading from every
 * member that is ahead of the stream's next byte, so a member that stalls holds the others back (through
 * their own flow control) rather than making the reader grow. A member that fails fails the channel.
 *
 * <p>A graceful {@code close()} pushes every queued byte to the members, lets each drain and then closes
 * each gracefully with its own linger; the close future fails with {@link UndeliveredDataException} (the
 * members' shortfalls summed) when a member's close does.
 */
public final class StripedChannel extends io.ferry.transport.spi.AbstractStreamChannel {

    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);
    /** The largest block a writer puts on one member at a time. */
    static final int BLOCK_SIZE = 64 << 10;
    /** Out-of-order bytes a reader holds before it stops reading from members that are ahead. */
    public static final long REORDER_LIMIT = 8L << 20;

    private final StripedTransport transport;
    private final StripedChannelConfig config = new StripedChannelConfig(this);
    private final int count;
    private final boolean framed;
    private volatile Duration linger;
    private EventLoop loop;
    private StripeMember[] members;
    /** The members' handlers, bound to this channel once it is registered; null before they are attached. */
    private MemberHandler[] handlers;
    private boolean membersBound;
    /** A channel made by a bootstrap's factory: its bind and connect; null for others. */
    private final StripedConnect client;

    private volatile boolean outputShutdown;

    // writing (striped event loop)
    private final StripeWriter writer;

    // reading (striped event loop)
    private final StripeReader reader = new StripeReader(this);
    private boolean failed;
    /** The peer is not a striped listener (an eager client read something else): its connections are closed, not reset. */
    private boolean peerNotStriped;

    // closing (striped event loop)
    private StripedLinger closing;
    private final List<UndeliveredDataException> memberLosses = Collections.synchronizedList(new ArrayList<>());

    StripedChannel(Channel parent, StripedTransport transport, int count, Duration linger) {
        this(parent, transport, count, linger, null);
    }

    private StripedChannel(Channel parent, StripedTransport transport, int count, Duration linger, ChannelOptions connectOptions) {
        super(parent);
        this.transport = transport;
        this.count = count;
        this.framed = count > 1;
        this.linger = linger;
        this.client = connectOptions == null ? null : new StripedConnect(this, transport, count, connectOptions);
        this.active = connectOptions == null;
        this.writer = new StripeWriter(this, framed);
        config.setMessageSizeEstimator(FerryChannels.FILE_REGIONS_COUNTED);
        attr(FerryChannels.TRANSPORT).set(transport);
    }

    /**
     * A client channel for Netty's {@code Bootstrap}: not yet connected; {@code connect} opens its members
     * with {@code options} (see {@link StripedTransport#bootstrapping}).
     */
    static StripedChannel unconnected(StripedTransport transport, int count, Duration linger, ChannelOptions options) {
        return new StripedChannel(null, transport, count, linger, options);
    }

    /**
     * Gives the channel its connected members and their handlers; the handlers are bound to the channel
     * (and data flows) once the channel is registered. Before registration the channel is meant for the
     * first member's event loop.
     */
    void attach(List<Channel> memberChannels, MemberHandler[] memberHandlers) {
        StripeMember[] list = new StripeMember[memberChannels.size()];
        for (int i = 0; i < list.length; i++) {
            list[i] = new StripeMember(i, memberChannels.get(i));
        }
        if (loop == null) {
            this.loop = memberChannels.get(0).eventLoop();
        }
        this.members = list;
        this.handlers = memberHandlers;
        if (carriesFileRegions()) {
            list[0].channel.config().setMessageSizeEstimator(FerryChannels.FILE_REGIONS_COUNTED);
        }
    }

    /**
     * Whether a {@link FileRegion} written to this channel reaches the kernel as such (with
     * {@code sendfile} under native epoll, {@code FileChannel.transferTo} under NIO): when one member
     * carries the stream unframed and that member is a kernel TCP socket. Other channels take only
     * {@link ByteBuf}s, and a region written to them fails its write.
     */
    public boolean carriesFileRegions() {
        return !framed && members != null && FerryChannels.isKernelSocket(members[0].channel);
    }

    /** A connect-made channel whose members never all connected: not active, so that its close is immediate. */
    void neverConnected() {
        active = false;
    }

    /** Marks a channel whose members never all connected as closed. */
    void abandon() {
        open = false;
        active = false;
    }

    /** Resets the members of an accepted channel that no acceptor took (its listener closed first). */
    void resetUnclaimed() {
        abandon();
        StripeGroup.abort(members);
    }

    @Override
    @SuppressWarnings("deprecation")
    protected void doRegister() {
        loop = eventLoop();
        bindMembers();
    }

    /** Lets the members' handlers feed this channel (on their own loops): from here on data flows. */
    private void bindMembers() {
        if (members == null || membersBound) {
            return;
        }
        membersBound = true;
        for (int i = 0; i < handlers.length; i++) {
            MemberHandler h = handlers[i];
            StripeMember m = members[i];
            h.channel().eventLoop().execute(() -> h.bind(this, m));
        }
    }

    /** A bootstrap-made client's bind and connect (on this channel's loop); null for other channels. */
    StripedConnect client() {
        return client;
    }

    /** A bootstrap-made client's members connected: they carry the channel from now on, and it is active. */
    void activate(List<Channel> memberChannels, MemberHandler[] memberHandlers) {
        attach(memberChannels, memberHandlers);
        bindMembers();
        active = true;
    }

    /** The event loop the channel will be registered on: its first member's. */
    EventLoop intendedLoop() {
        return loop;
    }

    /** The member connections, in the order of their index on the wire. */
    public List<Channel> members() {
        return StripeGroup.channels(members);
    }

    /** A statistics snapshot of each member connection, in member order; safe from any thread. */
    public List<TransportStatistics> memberStatistics() {
        return StripeGroup.statistics(members, transport);
    }

    /**
     * Bytes this reader holds that it cannot deliver yet: received ahead of a gap, or in order while the
     * application does not read. Past {@link #REORDER_LIMIT} the members that are ahead stop reading.
     */
    public long heldBytes() {
        return reader.heldBytes();
    }

    /** Application bytes written to this channel and handed to the members. */
    long bytesSent() {
        return writer.bytesSent();
    }

    /** Application bytes delivered in order to this channel's pipeline. */
    long bytesReceived() {
        return reader.bytesReceived();
    }

    StripedTransport transport() {
        return transport;
    }

    /** Sets how long a graceful close may take; zero makes {@code close()} an abort (what {@code SO_LINGER=0} asks). */
    void linger(Duration linger) {
        this.linger = linger;
    }

    Duration linger() {
        return linger;
    }

    /** The member losses this channel's close has already reported as its own. */
    List<UndeliveredDataException> memberLosses() {
        return memberLosses;
    }

    // ------------------------------------------------------------------ Channel

    @Override
    public StripedChannelConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    protected boolean isCompatible(EventLoop eventLoop) {
        return true;
    }

    @Override
    protected SocketAddress localAddress0() {
        return members != null ? members[0].channel.localAddress() : client != null ? client.boundLocal() : null;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return members == null ? null : members[0].channel.remoteAddress();
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new StripedUnsafe();
    }

    @Override
    protected void doBind(SocketAddress localAddress) throws IOException {
        if (client == null) {
            throw new java.nio.channels.AlreadyBoundException();
        }
        client.bind(localAddress, members != null);
    }

    @Override
    protected void doClose() {
        if (!open) {
            return;
        }
        open = false;
        active = false;
        reader.discard();
        for (StripeMember m : members == null ? new StripeMember[0] : members) {
            if (m.channel.isOpen()) {
                m.keepStatistics(transport);
                if (peerNotStriped) {
                    m.channel.close(); // as a client that never sent its hello closes: the plain listener sees a close
                } else {
                    FerryChannels.abort(m.channel); // a graceful close closed them already: this close is a failure or an abort
                }
            }
        }
    }

    @Override
    protected Object filterOutboundMessage(Object msg) throws Exception {
        if (closing != null && closing.endSent()) {
            throw new ClosedChannelException(); // past the end of stream the close sent
        }
        if (outputShutdown) {
            throw new ChannelOutputShutdownException("the output of " + this + " is shut down");
        }
        if (msg instanceof ByteBuf) {
            return msg;
        }
        if (msg instanceof FileRegion) {
            return msg;
        }
        throw new UnsupportedOperationException("striped channels write ByteBuf or FileRegion, got " + msg.getClass().getName());
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (!isActive()) {
            throw new ClosedChannelException();
        }
        writer.push(members, in, false, carriesFileRegions());
        if (closing != null) {
            closing.progress(); // a write during a graceful close may have been its last
        }
    }

    /** Checks a file region before its first byte goes to a kernel socket, as Netty's socket channels do. */
    void checkFileRegion(io.netty.channel.DefaultFileRegion region) throws java.io.IOException {
        region.open();
        validateFileRegion(region, 0);
    }

    @Override
    protected void doBeginRead() {
        reader.reads.requested();
        deliver();
    }

    // ------------------------------------------------------------------ from the members

    /** Runs {@code task} on this channel's event loop, at once when already there. */
    void onLoop(Runnable task) {
        if (loop.inEventLoop()) {
            task.run();
        } else {
            loop.execute(task);
        }
    }

    void onMemberData(StripeMember m, long offset, ByteBuf piece) {
        int length = piece.readableBytes();
        if (!open || inputShutdown || failed || length == 0) {
            piece.release();
            return;
        }
        reader.add(m, offset, piece);
    }

    void onMemberReadComplete(StripeMember m) {
        if (open) {
            deliver();
        }
    }

    void onMemberInputShutdown(StripeMember m) {
        m.inputDone = true;
        if (open) {
            deliver();
        }
    }

    /**
     * A member can take more: write what is queued. Always from a task of its own, since the member may
     * have turned writable inside this channel's write (when it flushed), where a flush would be ignored.
     */
    void onMemberWritable() {
        loop.execute(() -> {
            if (isActive() && (closing == null || !closing.endSent())) {
                ((StripedUnsafe) unsafe()).resumeWrites();
                if (closing != null) {
                    closing.progress();
                }
            }
        });
    }

    /** A member failed or closed underneath: the stream is broken, and so is this channel. */
    void fail(StripeMember m, Throwable cause) {
        if (closing != null && open) {
            closing.cutShort(); // a close still handing over: the members' closes now tell what was lost
        }
        if (!open || failed || closing != null) {
            return;
        }
        failed = true;
        peerNotStriped = cause instanceof NotStripedException;
        // a malformed block, or a listener that is not striped (an eager client's greeting), says all in itself
        IOException failure = cause instanceof ProtocolException || cause instanceof NotStripedException ? (IOException) cause
                : new IOException("member connection " + m.index + " of " + members.length + " of " + this + " failed: " + cause, cause);
        pipeline().fireExceptionCaught(failure);
        unsafe().close(voidPromise());
    }

    private void deliver() {
        reader.deliver(members);
    }

    /** Auto-read was switched off (from the config, on this channel's loop). */
    void autoReadCleared() {
        reader.reads.autoReadCleared();
        pumpReads(); // the members stop reading too
    }

    /** Whether the pipeline is to get more bytes: the channel is active and its input not shut down (the read loop decides when). */
    boolean wantsBytes() {
        return isActive() && !inputShutdown;
    }

    /** Lets the members read as far as this channel wants bytes (see {@link StripeReader#pump}). */
    void pumpReads() {
        reader.pump(members, wantsBytes());
    }

    void endOfInput() {
        if (inputShutdown) {
            return;
        }
        if (config.isAllowHalfClosure()) {
            inputShutdown = true;
            pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
            pipeline().fireUserEventTriggered(ChannelInputShutdownReadComplete.INSTANCE);
        } else {
            inputShutdown = true;
            // as every Ferry and Netty channel: not through the pipeline, where a handler (grpc-netty's HTTP/2)
            // would answer a gone peer with a GOAWAY and a PING and wait for their replies
            unsafe().close(unsafe().voidPromise());
        }
    }

    void onMemberInactive(StripeMember m) {
        if (m.inputDone && outputShutdown) {
            return; // both directions of the member ended: some transports (uTP) then close the connection
        }
        if (open && closing == null) {
            fail(m, new ClosedChannelException() {
                private static final long serialVersionUID = 1L;

                @Override
                public String getMessage() {
                    return "member connection " + m.index + " closed underneath";
                }
            });
        }
    }

    // ------------------------------------------------------------------ DuplexChannel

    @Override
    protected boolean hasConnection() {
        return members != null;
    }

    @Override
    protected void shutdownInput0(ChannelPromise promise) {
        inputShutdown = true;
        reader.discard();
        StripeGroup.shutdownInputs(members, promise);
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown || !isActive();
    }

    /**
     * Ends the stream this side sends: everything written so far goes out, then each member's output is
     * shut down behind its share, and the peer reads end of stream once it has every byte.
     */
    @Override
    protected void shutdownOutput0(ChannelPromise promise) {
        if (!isActive()) {
            promise.setFailure(new ClosedChannelException());
            return;
        }
        if (outputShutdown) {
            promise.setSuccess();
            return;
        }
        ChannelOutboundBuffer in = unsafe().outboundBuffer();
        if (in != null) {
            in.addFlush();
            writer.push(members, in, true, carriesFileRegions());
        }
        outputShutdown = true;
        StripeGroup.shutdownOutputs(members, promise);
    }

    // ------------------------------------------------------------------ abort and close

    /** Resets every member and closes the channel; a graceful close in progress fails, naming what was lost. */
    ChannelFuture abort() {
        ChannelPromise promise = newPromise();
        onLoop(() -> {
            StripeGroup.abort(members);
            if (closing != null) {
                closing.cutShort(); // a close still handing over ends now, its members' closes naming what was lost
            }
            if (closing == null || !closing.waiting.join(promise)) {
                unsafe().close(promise);
            }
        });
        return promise;
    }

    private void startClosing(ChannelPromise promise) {
        closing = new StripedLinger(this, promise);
        closing.start(linger);
    }

    /** Whether {@code l} is still this channel's close in progress, handing over. */
    boolean isLingering(StripedLinger l) {
        return closing == l && open;
    }

    /** Flushes what was written for a graceful close and writes what the members take; false if nothing can be written. */
    boolean flushForClose() {
        ChannelOutboundBuffer in = unsafe().outboundBuffer();
        if (in == null || outputShutdown) {
            return false;
        }
        in.addFlush();
        ((StripedUnsafe) unsafe()).resumeWrites();
        return true;
    }

    /** Hands the members whatever is still queued and closes them, ending the stream (the close's {@link StripedLinger} decides when). */
    void closeMembers() {
        ChannelOutboundBuffer in = unsafe().outboundBuffer();
        if (in != null && !outputShutdown) {
            in.addFlush();
            writer.push(members, in, true, carriesFileRegions());
        }
        StripedClose.closeAll(members, linger, transport, memberCloses -> onLoop(() -> finishClosing(memberCloses)));
    }

    private void finishClosing(List<Future<Void>> memberCloses) {
        List<UndeliveredDataException> losses = new ArrayList<>();
        Throwable failure = StripedClose.outcome(memberCloses, members, framed, writer.sendOffset(), remoteAddress(), losses);
        memberLosses.addAll(losses);
        transport.closed(this);
        ((StripedUnsafe) unsafe()).closeNow(closing.waiting.end(this, failure));
    }

    @Override
    public String toString() {
        if (members == null) {
            return "[striped x" + count + " connecting]";
        }
        return "[striped x" + count + " " + members[0].channel.localAddress() + " -> "
                + members[0].channel.remoteAddress() + (open ? "" : " closed") + "]";
    }

    final class StripedUnsafe extends AbstractUnsafe {
        @Override
        public void connect(SocketAddress remote, SocketAddress local, ChannelPromise promise) {
            if (client == null) {
                promise.setFailure(new java.nio.channels.AlreadyConnectedException());
            } else if (ensureOpen(promise)) {
                client.connect(remote, local, promise, members != null);
            }
        }

        void resumeWrites() {
            flush0();
        }

        @Override
        public void close(ChannelPromise promise) {
            if (closing != null && closing.waiting.join(promise)) {
                return;
            }
            if (closing == null && open && active && !failed) {
                if (linger.isZero()) {
                    StripeGroup.abort(members);
                    super.close(promise);
                } else if (promise.setUncancellable()) {
                    startClosing(promise);
                }
                return;
            }
            super.close(promise);
        }

        void closeNow(ChannelPromise promise) {
            super.close(promise);
        }
    }

    /** How many member connections carry this channel. */
    public int memberCount() {
        return count;
    }

    boolean isFramed() {
        return framed;
    }
}
