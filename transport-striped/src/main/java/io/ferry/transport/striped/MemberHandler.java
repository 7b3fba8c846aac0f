package io.ferry.transport.striped;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.net.ConnectException;
import java.net.ProtocolException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The last handler of a member connection's pipeline: first the striping handshake (see {@link StripedWire}),
 * then, once bound to its {@link StripedChannel}, the reader of the member's blocks. It runs on the member's
 * event loop and hands everything to the striped channel's loop.
 */
final class MemberHandler extends ChannelInboundHandlerAdapter {

    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(MemberHandler.class);

    /** What a handshake reports to: the client's session, or the listener's sessions. */
    interface Handshake {
        void done(MemberHandler member);

        void failed(MemberHandler member, Throwable cause);
    }

    private enum State { AWAIT_GREETING, AWAIT_HELLO, AWAIT_SESSION, BOUND, DEAD }

    private final Handshake handshake;
    private final Duration timeout;
    /** A client that sends its hello at once and reads the greeting ahead of the stream ({@link StripedChannelOption#EAGER_HELLO}). */
    private final boolean eager;
    /** An eager client has not read the listener's greeting yet: the stream's first bytes are still to prove it. */
    private boolean greetingPending;
    private State state;
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> timer;
    private ByteBuf cumulation;
    private boolean inputEndedEarly;
    /** A failure between the handshake's end and {@link #bind}: the striped channel hears it once bound. */
    private Throwable failedEarly;

    // what the client asks (client side) or what the hello said (listener side)
    private UUID session;
    private int index;
    private int count;

    // once bound
    private StripedChannel striped;
    private StripeMember member;
    private final byte[] header = new byte[StripedWire.BLOCK_HEADER];
    private int headerFill;
    private long blockOffset;
    private int blockRemaining;
    private long streamOffset;

    private MemberHandler(State state, Handshake handshake, Duration timeout, UUID session, int index, int count, boolean eager) {
        this.state = state;
        this.handshake = handshake;
        this.timeout = timeout;
        this.eager = eager;
        this.session = session;
        this.index = index;
        this.count = count;
    }

    /**
     * A client's member {@code index} of {@code count} of session {@code session}; {@code eager}: it sends its
     * hello as soon as it is connected and is done then, the greeting checked when it arrives.
     */
    static MemberHandler client(Handshake handshake, Duration timeout, UUID session, int index, int count, boolean eager) {
        return new MemberHandler(State.AWAIT_GREETING, handshake, timeout, session, index, count, eager);
    }

    /** A connection accepted by a striped listener, which says which session it joins. */
    static MemberHandler accepted(Handshake handshake, Duration timeout) {
        return new MemberHandler(State.AWAIT_HELLO, handshake, timeout, null, -1, -1, false);
    }

    UUID session() {
        return session;
    }

    int index() {
        return index;
    }

    int count() {
        return count;
    }

    io.netty.channel.Channel channel() {
        return ctx.channel();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (ctx.channel().isActive()) {
            start();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        start();
    }

    private void start() {
        if (timer != null || state == State.DEAD) {
            return;
        }
        String remote = String.valueOf(ctx.channel().remoteAddress());
        if (state == State.AWAIT_GREETING && ctx.channel().remoteAddress() != null
                && ctx.channel().remoteAddress().equals(ctx.channel().localAddress())) {
            // TCP's simultaneous open: the kernel gave the member the very port it dials (one a listener just
            // freed) and it connected to itself; no greeting can come, and nothing else listens there
            greetingFailed(new java.net.ConnectException("Connection refused: nothing listens at " + remote
                    + " (the member connected to itself)"));
            return;
        }
        if (state == State.AWAIT_HELLO) {
            ctx.writeAndFlush(StripedWire.greeting(ctx.alloc()));
            timer = ctx.executor().schedule(() -> refuse("no striping hello within " + timeout.toMillis() + " ms"),
                    timeout.toMillis(), TimeUnit.MILLISECONDS);
        } else {
            timer = ctx.executor().schedule(() -> greetingFailed(new NoGreetingException("no striping greeting from " + remote
                    + " within " + timeout.toMillis() + " ms: the listener there does not carry striped sessions"
                    + " (give it the STREAMS option too) or is not a Ferry listener", timeout)), timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        ctx.read();
        if (eager && state == State.AWAIT_GREETING) {
            greetingPending = true;
            sendHello();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        ByteBuf in = (ByteBuf) msg;
        if (state == State.DEAD || (state == State.AWAIT_SESSION && failedEarly != null)) {
            in.release();
            return;
        }
        if (greetingPending) {
            cumulate(in);
            if (readEagerGreeting() && state == State.BOUND) {
                ByteBuf rest = cumulation;
                cumulation = null;
                if (rest.isReadable()) {
                    process(rest);
                } else {
                    rest.release();
                }
            }
            return;
        }
        if (state == State.BOUND) {
            process(in);
            return;
        }
        cumulate(in);
        if (state == State.AWAIT_GREETING) {
            readGreeting();
        } else if (state == State.AWAIT_HELLO) {
            readHello();
        }
    }

    private void cumulate(ByteBuf in) {
        if (cumulation == null) {
            cumulation = in;
        } else {
            ByteBuf merged = ctx.alloc().buffer(cumulation.readableBytes() + in.readableBytes());
            merged.writeBytes(cumulation).writeBytes(in);
            cumulation.release();
            in.release();
            cumulation = merged;
        }
    }

    private void readGreeting() {
        if (!greetingRead()) {
            return;
        }
        sendHello();
    }

    /** Sends the hello: from here the client's member is done with its handshake and waits for its channel. */
    private void sendHello() {
        state = State.AWAIT_SESSION;
        ctx.writeAndFlush(StripedWire.hello(ctx.alloc(), session, index, count));
        handshake.done(this);
    }

    /** An eager client's greeting, ahead of the stream: whether it is read (what follows it is the stream's). */
    private boolean readEagerGreeting() {
        if (!greetingRead()) {
            return false;
        }
        greetingPending = false;
        return state != State.DEAD;
    }

    /**
     * Consumes the greeting from {@link #cumulation}: true once it is there whole, false while more is to come
     * or when what arrived is something else (the client then failed with a {@link NotStripedException}).
     */
    private boolean greetingRead() {
        int n = Math.min(cumulation.readableBytes(), StripedWire.MAGIC.length);
        if (!StripedWire.startsWithMagic(cumulation, n)) {
            String answered = StripedWire.printable(cumulation, 60);
            greetingFailed(new NotStripedException("the listener at " + ctx.channel().remoteAddress() + " does not carry striped sessions:"
                    + " it answered '" + answered + "' (give it the STREAMS option too)", answered));
            return false;
        }
        if (n < StripedWire.MAGIC.length) {
            return false; // more to come
        }
        cumulation.skipBytes(StripedWire.MAGIC.length);
        cancelTimer();
        return true;
    }

    /**
     * The listener's greeting did not come: before the hello the handshake fails; for an eager client,
     * whose channel may be connected already, the channel fails (or will, once it binds this member).
     */
    private void greetingFailed(Throwable cause) {
        if (!greetingPending) {
            fail(cause);
            return;
        }
        greetingPending = false;
        cancelTimer();
        release();
        if (state == State.BOUND) {
            StripedChannel s = striped;
            StripeMember m = member;
            state = State.DEAD;
            s.onLoop(() -> s.fail(m, cause));
        } else if (state == State.AWAIT_SESSION) {
            if (failedEarly == null) {
                failedEarly = cause;
            }
            handshake.failed(this, cause);
        }
    }

    private void readHello() {
        int n = Math.min(cumulation.readableBytes(), StripedWire.MAGIC.length);
        if (!StripedWire.startsWithMagic(cumulation, n)) {
            LOG.warn("{}: refused a connection from {} that is not striped (it sent '{}'); its client must set STREAMS",
                    ctx.channel().parent(), ctx.channel().remoteAddress(), StripedWire.printable(cumulation, 40));
            refuse("this listener carries striped sessions: connect with the STREAMS option (FerryChannelOption.STREAMS or ?streams=N)");
            return;
        }
        if (cumulation.readableBytes() < StripedWire.HELLO_LENGTH) {
            return;
        }
        cumulation.skipBytes(StripedWire.MAGIC.length);
        session = new UUID(cumulation.readLong(), cumulation.readLong());
        index = cumulation.readUnsignedShort();
        count = cumulation.readUnsignedShort();
        if (count < 1 || count > StripedWire.MAX_STREAMS || index >= count) {
            refuse("member " + index + " of " + count + " is not a valid striped member (1 to " + StripedWire.MAX_STREAMS + " streams)");
            return;
        }
        cancelTimer();
        state = State.AWAIT_SESSION;
        handshake.done(this);
    }

    /** Tells a peer that is not a striped client what is wrong, then closes. */
    void refuse(String why) {
        if (state == State.DEAD) {
            return;
        }
        state = State.DEAD;
        cancelTimer();
        release();
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(StripedWire.refusal(ctx.alloc(), why)).addListener(ChannelFutureListener.CLOSE);
        }
        handshake.failed(this, new ProtocolException(why));
    }

    private void fail(Throwable cause) {
        if (state == State.DEAD || state == State.BOUND) {
            return;
        }
        state = State.DEAD;
        cancelTimer();
        release();
        handshake.failed(this, cause);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (state == State.BOUND) {
            StripedChannel s = striped;
            StripeMember m = member;
            s.onLoop(() -> s.onMemberReadComplete(m));
        } else if (state == State.AWAIT_GREETING || state == State.AWAIT_HELLO) {
            ctx.executor().execute(ctx::read); // after this read ends, so that epoll looks at the socket again
        }
        if (greetingPending && (state == State.AWAIT_SESSION || state == State.BOUND)) {
            ctx.executor().execute(ctx::read); // the rest of the greeting, whether or not the channel reads
        }
    }

    /** Joins the striped channel: from now on what the member reads goes there. Call on the member's loop. */
    void bind(StripedChannel channel, StripeMember m) {
        if (state == State.DEAD) {
            channel.onLoop(() -> channel.fail(m, new java.net.ConnectException("member connection " + index
                    + " failed before its striped channel took it")));
            return;
        }
        if (state != State.AWAIT_SESSION) {
            return;
        }
        striped = channel;
        member = m;
        state = State.BOUND;
        if (greetingPending) {
            ctx.read(); // the greeting comes first, whether or not the channel reads; what it holds of it stays
        }
        ByteBuf early = greetingPending ? null : cumulation;
        if (early != null) {
            cumulation = null;
            if (early.isReadable()) {
                process(early);
            } else {
                early.release();
            }
        }
        if (failedEarly != null) {
            // A reset also ends the member's input (Netty's epoll closes it for reading after the exception):
            // the channel must hear the failure, not a clean end of stream that would close it quietly.
            Throwable cause = failedEarly;
            channel.onLoop(() -> channel.onMemberReadComplete(m));
            channel.onLoop(() -> channel.fail(m, cause));
            return;
        }
        if (inputEndedEarly) {
            inputEnded();
        }
        channel.onLoop(() -> channel.onMemberReadComplete(m));
        if (ctx.channel().isWritable()) {
            channel.onMemberWritable(); // a change before the binding went unheard
        }
        if (!ctx.channel().isActive()) {
            channel.onLoop(() -> channel.onMemberInactive(m));
        }
    }

    private void process(ByteBuf in) {
        StripedChannel s = striped;
        StripeMember m = member;
        if (!s.isFramed()) {
            long offset = streamOffset;
            streamOffset += in.readableBytes();
            s.onLoop(() -> s.onMemberData(m, offset, in));
            return;
        }
        List<Object> pieces = new ArrayList<>(4);
        try {
            while (in.isReadable()) {
                if (blockRemaining == 0) {
                    int take = Math.min(in.readableBytes(), header.length - headerFill);
                    in.readBytes(header, headerFill, take);
                    headerFill += take;
                    if (headerFill < header.length) {
                        break;
                    }
                    headerFill = 0;
                    long offset = 0;
                    for (int i = 0; i < 8; i++) {
                        offset = (offset << 8) | (header[i] & 0xffL);
                    }
                    int length = ((header[8] & 0xff) << 24) | ((header[9] & 0xff) << 16) | ((header[10] & 0xff) << 8) | (header[11] & 0xff);
                    if (length <= 0 || length > StripedWire.MAX_BLOCK || offset < streamOffset) {
                        throw new ProtocolException("member " + m.index + " sent a malformed block (offset " + offset + ", length "
                                + length + ", after offset " + streamOffset + "): the peer is not a correct striped sender");
                    }
                    blockOffset = offset;
                    blockRemaining = length;
                    streamOffset = offset + length;
                    continue;
                }
                int n = Math.min(blockRemaining, in.readableBytes());
                pieces.add(blockOffset);
                pieces.add(in.readRetainedSlice(n));
                blockOffset += n;
                blockRemaining -= n;
            }
        } catch (ProtocolException e) {
            pieces.forEach(ReferenceCountUtil::release);
            in.release();
            s.onLoop(() -> s.fail(m, e));
            state = State.DEAD;
            return;
        }
        in.release();
        if (!pieces.isEmpty()) {
            s.onLoop(() -> {
                for (int i = 0; i < pieces.size(); i += 2) {
                    s.onMemberData(m, (Long) pieces.get(i), (ByteBuf) pieces.get(i + 1));
                }
            });
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            if (greetingPending || state == State.AWAIT_GREETING) {
                greetingFailed(endedBeforeGreeting("ended"));
            } else if (state == State.BOUND) {
                inputEnded();
            } else if (state == State.AWAIT_SESSION) {
                inputEndedEarly = true;
            } else if (state == State.AWAIT_HELLO) {
                refuse("the connection ended before its striping hello");
            }
        } else if (evt != ChannelInputShutdownReadComplete.INSTANCE) {
            ReferenceCountUtil.release(evt);
        }
    }

    private NotStripedException endedBeforeGreeting(String how) {
        return new NotStripedException("the listener at " + ctx.channel().remoteAddress() + " " + how
                + " the connection before the striping greeting: it does not carry striped sessions (give it the STREAMS option too)", "");
    }

    private void inputEnded() {
        StripedChannel s = striped;
        StripeMember m = member;
        if (blockRemaining > 0 || headerFill > 0) {
            s.onLoop(() -> s.fail(m, new ProtocolException("member " + m.index + " ended inside a block")));
            return;
        }
        s.onLoop(() -> s.onMemberInputShutdown(m));
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (state == State.BOUND && ctx.channel().isWritable()) {
            StripedChannel s = striped;
            s.onMemberWritable();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (state == State.BOUND) {
            StripedChannel s = striped;
            StripeMember m = member;
            s.onLoop(() -> s.fail(m, cause));
        } else if (state == State.AWAIT_HELLO) {
            state = State.DEAD;
            cancelTimer();
            release();
            ctx.close();
            handshake.failed(this, cause);
        } else if (state == State.AWAIT_SESSION) {
            // the session may be complete and its channel about to bind this member (a reset right after
            // the handshake): kept for the channel, which would otherwise never learn its member failed
            if (failedEarly == null) {
                failedEarly = cause;
            }
            handshake.failed(this, cause);
        } else {
            fail(cause);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (greetingPending || state == State.AWAIT_GREETING) {
            greetingFailed(endedBeforeGreeting("closed"));
        } else if (state == State.BOUND) {
            StripedChannel s = striped;
            StripeMember m = member;
            s.onLoop(() -> s.onMemberInactive(m));
        } else if (state == State.AWAIT_HELLO) {
            state = State.DEAD;
            cancelTimer();
            release();
            handshake.failed(this, new ClosedChannelException());
        } else if (state == State.AWAIT_SESSION) {
            release();
            handshake.failed(this, new ConnectException("member connection " + index + " to " + ctx.channel().remoteAddress()
                    + " closed during the striping handshake"));
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
        }
    }

    private void release() {
        if (cumulation != null) {
            cumulation.release();
            cumulation = null;
        }
    }
}
