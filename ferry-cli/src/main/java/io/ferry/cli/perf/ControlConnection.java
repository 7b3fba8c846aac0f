package io.ferry.cli.perf;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.string.StringDecoder;
import io.netty.handler.codec.string.StringEncoder;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@code ferry perf}'s control connection (TCP, as iperf3's): lines of {@link ControlMessage} both ways.
 * A {@code PING} is answered with a {@code PONG} on the event loop at once, so that the round trip it
 * measures is the path's (and its queue's), not the other side's test thread; every other line waits in
 * a queue for the thread that runs the session.
 */
final class ControlConnection extends ChannelInboundHandlerAdapter implements AutoCloseable {

    private static final ControlMessage CLOSED = ControlMessage.of("CLOSED");

    private final Channel channel;
    private final BlockingQueue<ControlMessage> incoming = new LinkedBlockingQueue<>();
    private volatile Consumer<ControlMessage> pongs = m -> { };
    private volatile Throwable failure;

    private ControlConnection(Channel channel) {
        this.channel = channel;
    }

    /** Adds the line codec and the connection's handler to {@code channel}'s pipeline. */
    static ControlConnection attach(Channel channel) {
        ControlConnection c = new ControlConnection(channel);
        channel.pipeline().addLast(new LineBasedFrameDecoder(ControlMessage.MAX_LINE),
                new StringDecoder(StandardCharsets.UTF_8), new StringEncoder(StandardCharsets.UTF_8), c);
        return c;
    }

    void send(ControlMessage m) {
        channel.writeAndFlush(m.line() + "\n");
    }

    /** Where {@code PONG}s go (from the event loop). */
    void onPong(Consumer<ControlMessage> listener) {
        pongs = listener;
    }

    /** The next message, waiting up to {@code millis}. */
    ControlMessage next(long millis) throws IOException, InterruptedException {
        ControlMessage m = incoming.poll(millis, TimeUnit.MILLISECONDS);
        if (m == null) {
            throw new IOException("the other side sent nothing for " + millis / 1000.0 + " s");
        }
        if (m == CLOSED) {
            incoming.add(CLOSED);
            Throwable f = failure;
            throw new IOException("the control connection closed" + (f == null ? "" : " (" + f.getMessage() + ")"));
        }
        if (m.is("ERROR")) {
            throw new PerfException(m.get("text", "the other side reported an error"));
        }
        return m;
    }

    /** The next message, which must be {@code verb}. */
    ControlMessage expect(String verb, long millis) throws IOException, InterruptedException {
        ControlMessage m = next(millis);
        if (!m.is(verb)) {
            throw new IOException("expected " + verb + " from the other side, got " + m.verb());
        }
        return m;
    }

    InetSocketAddress remote() {
        return (InetSocketAddress) channel.remoteAddress();
    }

    boolean isOpen() {
        return channel.isActive();
    }

    Channel channel() {
        return channel;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ControlMessage m;
        try {
            m = ControlMessage.parse((String) msg);
        } catch (IllegalArgumentException e) {
            failure = e;
            ctx.close();
            return;
        }
        if (m.is("PING")) {
            ctx.writeAndFlush(new ControlMessage("PONG", m.fields()).line() + "\n");
        } else if (m.is("PONG")) {
            pongs.accept(m);
        } else {
            incoming.add(m);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        incoming.add(CLOSED);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        failure = cause;
        ctx.close();
    }

    @Override
    public void close() {
        channel.close();
    }
}
