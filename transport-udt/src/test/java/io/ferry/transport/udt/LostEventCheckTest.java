package io.ferry.transport.udt;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link LostEventCheck}: calls made before a look is due share it; a call after a look schedules another. */
class LostEventCheckTest {

    @Test
    void callsBeforeTheLookShareItAndALaterCallGetsItsOwn() throws Exception {
        EventLoop loop = new DefaultEventLoop();
        try {
            AtomicInteger looks = new AtomicInteger();
            LostEventCheck check = new LostEventCheck(loop, looks::incrementAndGet);
            loop.submit(() -> {
                check.arm();
                check.arm();
                check.arm();
            }).get(5, TimeUnit.SECONDS);
            Thread.sleep(LostEventCheck.DELAY_MILLIS * 5);
            assertEquals(1, loop.submit(looks::get).get(5, TimeUnit.SECONDS));
            loop.submit(check::arm).get(5, TimeUnit.SECONDS);
            Thread.sleep(LostEventCheck.DELAY_MILLIS * 5);
            assertEquals(2, loop.submit(looks::get).get(5, TimeUnit.SECONDS));
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
