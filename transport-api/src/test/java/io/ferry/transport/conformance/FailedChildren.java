package io.ferry.transport.conformance;

import io.ferry.transport.DataLossException;
import io.ferry.transport.Transports;
import io.ferry.transport.UndeliveredDataException;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A listener whose child handler cannot be added to a second connection (a handler that is not
 * {@code @Sharable}: a common first mistake) must lose that connection only, as Netty's
 * {@code ServerBootstrap} does: the transport still closes completely and leaves no thread behind.
 */
interface FailedChildren extends ConformanceEndpoints {

    /** Not {@code @Sharable}: Netty refuses to add the same instance to a second pipeline. */
    final class NotSharable extends ChannelInboundHandlerAdapter {
    }

    /** Notes how a client connection ended, if it did. */
    final class Tracker extends ChannelInboundHandlerAdapter {
        final CompletableFuture<String> ended = new CompletableFuture<>();

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof ChannelInputShutdownEvent) {
                ended.complete("end of stream");
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            ended.complete("closed");
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ended.complete("failed: " + cause);
            ctx.close();
        }
    }

    @Test
    @Timeout(120)
    default void aChildWhoseInitialisationFailsIsClosedAndTheTransportStillClosesAndLeavesNoThread() throws Exception {
        Set<Thread> before = liveNonDaemonThreads();
        Transports own = newTransportsForTest();
        try {
            Channel server = own.listen(uriForTest(0), new NotSharable(), optionsForTest()).sync().channel();
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            // Two connections: whichever the listener initialises second (listeners with several accepting
            // sockets may take them in either order) cannot get the handler. It is refused, or its peer ends
            // it (reset, close or, where half-close is on, end of stream); the other one is unaffected.
            Tracker a = new Tracker();
            Tracker b = new Tracker();
            ChannelFuture ca = own.connect(uriForTest(port), a, optionsForTest());
            ChannelFuture cb = own.connect(uriForTest(port), b, optionsForTest());
            assertTrue(ca.await(30, TimeUnit.SECONDS) && cb.await(30, TimeUnit.SECONDS), "both connects complete");
            ca.addListener(f -> {
                if (!f.isSuccess()) {
                    a.ended.complete("refused: " + f.cause());
                }
            });
            cb.addListener(f -> {
                if (!f.isSuccess()) {
                    b.ended.complete("refused: " + f.cause());
                }
            });
            TransportConformanceTest.await(CompletableFuture.anyOf(a.ended, b.ended), "the end of the connection whose initialisation failed");
            Thread.sleep(500);
            assertTrue(a.ended.isDone() != b.ended.isDone(), "exactly one connection ended: " + a.ended + " / " + b.ended);
            Channel survivor = a.ended.isDone() ? cb.channel() : ca.channel();
            assertTrue(survivor.isActive(), "the connection that got the handler is unaffected");
        } finally {
            closeCompletely(own);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Set<Thread> left;
        do {
            left = liveNonDaemonThreads();
            left.removeAll(before);
            if (left.isEmpty()) {
                break;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        assertEquals(Set.of(), left.stream().map(Thread::getName).collect(Collectors.toSet()),
                "no thread of the closed transport keeps the JVM alive");
    }

    /**
     * {@code Transports.close()} must complete. Closing both ends of a connection at once in one
     * {@code Transports} may leave a user-space transport's end of stream unconfirmed (the peer was gone
     * first): reported, with no byte lost, as a {@link DataLossException} of zero bytes. Anything else fails.
     */
    private static void closeCompletely(Transports own) {
        try {
            own.close();
        } catch (DataLossException e) {
            for (UndeliveredDataException loss : e.losses()) {
                assertEquals(0, loss.unacknowledgedBytes(), "no byte lost in the close: " + e.getMessage());
            }
        }
    }

    private static Set<Thread> liveNonDaemonThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && !t.isDaemon())
                .collect(Collectors.toSet());
    }
}
