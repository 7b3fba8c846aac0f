package io.ferry.cli.transfer;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LoopMailboxTest {

    /** Counts the flushes that reach the channel. */
    private static final class Flushes extends ChannelOutboundHandlerAdapter {
        final AtomicInteger count = new AtomicInteger();

        @Override
        public void flush(ChannelHandlerContext ctx) {
            count.incrementAndGet();
            ctx.flush();
        }
    }

    @Test
    void aTaskPostedAfterTheLoopShutDownIsDroppedWithoutAnExceptionOnTheDiskThread() throws Exception {
        io.netty.channel.DefaultEventLoopGroup group = new io.netty.channel.DefaultEventLoopGroup(1);
        io.netty.channel.local.LocalChannel channel = new io.netty.channel.local.LocalChannel();
        ChannelInboundHandlerAdapter session = new ChannelInboundHandlerAdapter();
        channel.pipeline().addLast(session);
        group.register(channel).sync();
        LoopMailbox mailbox = new LoopMailbox(channel.pipeline().context(session));
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        AtomicInteger ran = new AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<Throwable> thrown = new java.util.concurrent.atomic.AtomicReference<>();
        Thread disk = new Thread(() -> mailbox.post(ran::incrementAndGet), "ferry-disk-1");
        disk.setUncaughtExceptionHandler((t, e) -> thrown.set(e));
        disk.start();
        disk.join();
        assertNull(thrown.get(), "the disk thread ends quietly");
        assertEquals(0, ran.get());
    }

    @Test
    void tasksPostedTogetherRunInOrderAndTheirFramesLeaveInOneFlush() throws Exception {
        Flushes flushes = new Flushes();
        ChannelInboundHandlerAdapter session = new ChannelInboundHandlerAdapter();
        EmbeddedChannel channel = new EmbeddedChannel(flushes, session);
        ChannelHandlerContext ctx = channel.pipeline().context(session);
        LoopMailbox mailbox = new LoopMailbox(ctx);

        Thread disk = new Thread(() -> {
            for (String frame : List.of("accept 1", "accept 2", "verdict 1")) {
                mailbox.post(() -> {
                    ctx.write(frame);
                    mailbox.flush(); // inside the posted tasks: left to the end of the run
                });
            }
        });
        disk.start();
        disk.join();
        assertNull(channel.readOutbound(), "nothing runs before the loop does");
        assertEquals(0, flushes.count.get());

        channel.runPendingTasks();
        assertEquals(1, flushes.count.get(), "one flush for the three tasks' frames");
        assertEquals("accept 1", channel.readOutbound());
        assertEquals("accept 2", channel.readOutbound());
        assertEquals("verdict 1", channel.readOutbound());

        ctx.write("later");
        mailbox.flush(); // outside a run: at once
        assertEquals(2, flushes.count.get());
        assertEquals("later", channel.readOutbound());
        channel.finishAndReleaseAll();
    }

    @Test
    void aFailingTaskReachesThePipelineAndTheOthersStillRun() {
        java.util.List<Throwable> caught = new java.util.ArrayList<>();
        ChannelInboundHandlerAdapter session = new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                caught.add(cause);
            }
        };
        EmbeddedChannel channel = new EmbeddedChannel(session);
        ChannelHandlerContext ctx = channel.pipeline().context(session);
        LoopMailbox mailbox = new LoopMailbox(ctx);
        mailbox.post(() -> {
            throw new IllegalStateException("a bug in one task");
        });
        mailbox.post(() -> ctx.write("verdict 2"));
        channel.runPendingTasks();
        assertEquals(1, caught.size());
        assertEquals("a bug in one task", caught.get(0).getMessage());
        assertEquals("verdict 2", channel.readOutbound(), "the task after it ran and its frame was flushed");
        channel.finishAndReleaseAll();
    }

    @Test
    void aTaskPostedByARunningTaskRunsToo() throws Exception {
        ChannelInboundHandlerAdapter session = new ChannelInboundHandlerAdapter();
        EmbeddedChannel channel = new EmbeddedChannel(session);
        LoopMailbox mailbox = new LoopMailbox(channel.pipeline().context(session));
        CountDownLatch ran = new CountDownLatch(2);
        mailbox.post(() -> {
            ran.countDown();
            mailbox.post(ran::countDown);
        });
        channel.runPendingTasks();
        channel.runPendingTasks();
        assertTrue(ran.await(1, TimeUnit.SECONDS));
        channel.finishAndReleaseAll();
    }
}
