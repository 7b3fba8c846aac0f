package io.ferry.cli.transfer;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslHandler;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Ends a connection after its last words (a receiver's ERROR frame) so that the peer gets to read them: the
 * output is ended behind them, and what the peer still sends is read and dropped until it closes, for at most
 * {@link #LINGER}. Closing at once would answer the peer's data in flight with a reset, and a reset can make the
 * peer fail on a write before it reads the words (a sender streaming its first files before any answer, protocol
 * 6, did exactly that: "Broken pipe" instead of "the receiver refused this sender"). The same reason makes web
 * servers close lingeringly.
 */
final class LingeringClose {

    /** How long a refused peer may go on sending before the connection is closed anyway. */
    static final Duration LINGER = Duration.ofSeconds(2);

    private LingeringClose() {
    }

    /**
     * Once {@code lastWords} are written, ends the output (not under TLS, which has no half-close) and reads on
     * until the peer closes or {@link #LINGER} has passed; the handlers after {@code ctx} must drop what they read.
     */
    static void after(ChannelHandlerContext ctx, ChannelFuture lastWords) {
        lastWords.addListener(written -> {
            Channel ch = ctx.channel();
            if (!written.isSuccess() || !ch.isActive()) {
                ch.close();
                return;
            }
            if (ch instanceof DuplexChannel && ctx.pipeline().get(SslHandler.class) == null) {
                ((DuplexChannel) ch).shutdownOutput();
            }
            ch.config().setAutoRead(true);
            ch.eventLoop().schedule(() -> ch.close(), LINGER.toMillis(), TimeUnit.MILLISECONDS);
        });
    }
}
