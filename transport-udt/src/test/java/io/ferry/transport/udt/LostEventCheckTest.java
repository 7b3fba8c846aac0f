package io.ferry.transport.udt;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import org.junit.jupiter.api.Test;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link LostEventCheck}: calls made before a look is due share it; a call after a look schedules another. */
class LostEventCheckTest {

    @Test
    void callsBeforeTheLookShareItAndALaterCallGetsItsOwn() throws Exception {
        EventLoop loop = new DefaultEventLoop();
        try {
            AtomicInteger looks = new AtomicInteger();
            Semaphore looked = new Semaphore(0);
            LostEventCheck check = new LostEventCheck(loop, () -> {
                looks.incrementAndGet();
                looked.release();
            });
            loop.submit(() -> {
                check.arm();
                check.arm();
                check.arm();
            }).get(5, TimeUnit.SECONDS);
            assertTrue(looked.tryAcquire(5, TimeUnit.SECONDS), "no look came");
            // any second look from those three calls would be due by now: ask the loop well after it
            int afterFirst = loop.schedule(looks::get, LostEventCheck.DELAY_MILLIS * 3, TimeUnit.MILLISECONDS).get(5, TimeUnit.SECONDS);
            assertEquals(1, afterFirst);
            loop.submit(check::arm).get(5, TimeUnit.SECONDS);
            assertTrue(looked.tryAcquire(5, TimeUnit.SECONDS), "a call after the look got none");
            assertEquals(2, looks.get());
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
