package io.ferry.transport.spi;

import io.ferry.transport.UndeliveredDataException;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GracefulCloseTest {

    @Test
    void everyJoinedCloseCompletesOnlyOnceTheChannelHasClosed() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ChannelPromise first = ch.newPromise();
        ChannelPromise second = ch.newPromise();
        GracefulClose close = new GracefulClose(first);
        assertTrue(close.join(second));
        assertTrue(close.join(ch.voidPromise()), "a void close waits too");
        ChannelPromise closed = close.end(ch, (Throwable) null);
        assertTrue(close.isEnding());
        assertFalse(first.isDone());
        ChannelPromise late = ch.newPromise();
        assertTrue(close.join(late), "a close while the channel closes joins it");
        closed.setSuccess();
        assertTrue(first.isSuccess() && second.isSuccess() && late.isSuccess());
        assertFalse(close.join(ch.newPromise()), "after the close, Netty's own close answers");
    }

    @Test
    void aFailureReachesEveryJoinedClose() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ChannelPromise first = ch.newPromise();
        ChannelPromise second = ch.newPromise();
        GracefulClose close = new GracefulClose(first);
        close.join(second);
        UndeliveredDataException lost = new UndeliveredDataException(new InetSocketAddress("127.0.0.1", 1), 10, false, false, "LINGER ran out");
        close.end(ch, lost).setSuccess();
        assertSame(lost, first.cause());
        assertSame(lost, second.cause());
    }

    @Test
    void aLateFailureIsReadWhenTheCloseCompletes() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ChannelPromise first = ch.newPromise();
        GracefulClose close = new GracefulClose(first);
        AtomicReference<Throwable> why = new AtomicReference<>();
        ChannelPromise closed = close.end(ch, why::get);
        IllegalStateException broke = new IllegalStateException("the connection broke while closing");
        why.set(broke);
        closed.setSuccess();
        assertSame(broke, first.cause());
    }

    @Test
    void aCancelledCloseIsNotJoinedAndACloseEndsOnce() {
        EmbeddedChannel ch = new EmbeddedChannel();
        GracefulClose close = new GracefulClose(ch.newPromise());
        ChannelPromise cancelled = ch.newPromise();
        cancelled.cancel(false);
        assertTrue(close.join(cancelled));
        close.end(ch, (Throwable) null).setSuccess();
        assertTrue(cancelled.isCancelled());
        assertThrows(IllegalStateException.class, () -> close.end(ch, (Throwable) null));
    }
}
