package io.ferry.transport.spi;

import io.netty.channel.Channel;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;

/**
 * Closes a channel when the event loop it is registered with shuts down, as Netty's loops close the sockets
 * registered with their I/O handler. A Ferry channel on an application's loop (a hosted connection, a
 * listener whose connections come from elsewhere) is not one of those, so without this a
 * {@code shutdownGracefully()} left it open: its carried connection kept talking to the peer, a listener
 * kept its port, and bytes queued for a pipeline that was not reading were never released. Uses the loop's
 * shutdown hooks, which run on the loop before it stops taking tasks, so the close must not wait for
 * another loop: the channel's {@code close} action completes it there and then, and the pipeline still sees
 * {@code channelInactive}. A loop that is not a {@link SingleThreadEventExecutor} offers no hook; its
 * channels stay as they were. Event-loop only.
 */
public final class CloseOnLoopShutdown implements Runnable {

    private final Channel channel;
    private final Runnable close;
    private SingleThreadEventExecutor hookedOn;

    /** @param close closes {@code channel} without waiting for another loop */
    public CloseOnLoopShutdown(Channel channel, Runnable close) {
        this.channel = channel;
        this.close = close;
    }

    /** The channel was registered (its {@code doRegister}, on its loop): close it when that loop shuts down. */
    public void registered() {
        EventExecutor loop = channel.eventLoop();
        if (hookedOn == null && loop instanceof SingleThreadEventExecutor executor && loop.inEventLoop()) {
            executor.addShutdownHook(this);
            hookedOn = executor;
        }
    }

    /** The channel closed (its {@code doClose}): its loop's shutdown no longer concerns it. */
    public void closed() {
        SingleThreadEventExecutor executor = hookedOn;
        hookedOn = null;
        if (executor != null && executor.inEventLoop()) {
            executor.removeShutdownHook(this);
        }
    }

    /** The loop is shutting down. */
    @Override
    public void run() {
        hookedOn = null;
        if (channel.isOpen()) {
            close.run();
        }
    }
}
