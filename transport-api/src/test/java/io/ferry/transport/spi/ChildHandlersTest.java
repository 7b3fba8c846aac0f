package io.ferry.transport.spi;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipelineException;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ChildHandlersTest {

    private static final int THREADS = 2;
    private static final int ROUNDS = 2_000;

    /** Not {@code @Sharable}. */
    static final class Single extends ChannelInboundHandlerAdapter {
    }

    @ChannelHandler.Sharable
    static final class Shared extends ChannelInboundHandlerAdapter {
    }

    @Test
    void aHandlerThatIsNotSharableGoesIntoOnePipelineEvenWhenLoopsAddItAtOnce() throws Exception {
        warmUp();
        for (int round = 0; round < ROUNDS; round++) {
            assertEquals(1, addFromAllThreadsAtOnce(new Single()), "round " + round + ": pipelines that got the handler");
        }
    }

    @Test
    void aSharableHandlerGoesIntoEveryPipeline() throws Exception {
        assertEquals(THREADS, addFromAllThreadsAtOnce(new Shared()));
    }

    /** Compiles the pipeline's add path, as a listener that has accepted for a while has it: the race is widest then. */
    private static void warmUp() {
        for (int i = 0; i < 20_000; i++) {
            EmbeddedChannel c = new EmbeddedChannel();
            c.pipeline().addLast(new Single());
            c.finishAndReleaseAll();
        }
    }

    /** Adds {@code handler} to a new channel from each of {@link #THREADS} threads released together; how many succeeded. */
    private static int addFromAllThreadsAtOnce(ChannelHandler handler) throws Exception {
        AtomicInteger ready = new AtomicInteger();
        AtomicInteger added = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        Thread[] threads = new Thread[THREADS];
        for (int i = 0; i < THREADS; i++) {
            threads[i] = new Thread(() -> {
                EmbeddedChannel child = new EmbeddedChannel();
                try {
                    ready.incrementAndGet();
                    while (ready.get() < THREADS) {
                        Thread.onSpinWait(); // all start within nanoseconds, as two loops handling two handshakes at once
                    }
                    ChildHandlers.addLast(child, handler);
                    added.incrementAndGet();
                } catch (ChannelPipelineException e) {
                    refused.incrementAndGet();
                } finally {
                    child.finishAndReleaseAll();
                }
            });
            threads[i].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(THREADS, added.get() + refused.get(), "every thread got an answer");
        return added.get();
    }
}
