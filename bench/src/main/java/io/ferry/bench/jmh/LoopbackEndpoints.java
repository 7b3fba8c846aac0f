package io.ferry.bench.jmh;

import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;

import java.net.InetSocketAddress;

/**
 * A {@link Transports} instance with one listener on loopback, for the benchmarks; fails clearly when
 * the transport is not installed.
 */
final class LoopbackEndpoints implements AutoCloseable {

    private final Transports transports = Transports.create();
    private final String scheme;
    private final Channel listener;

    LoopbackEndpoints(String scheme, ChannelHandler childHandler) throws InterruptedException {
        this.scheme = scheme;
        if (!transports.schemes().contains(scheme)) {
            transports.close();
            throw new IllegalStateException("transport '" + scheme + "' is not installed (installed: " + transports.schemes()
                    + "); pass -p transport=" + String.join(",", transports.transportNames()));
        }
        this.listener = transports.listen(scheme + "://127.0.0.1:0", childHandler).sync().channel();
    }

    /** The listener's URI. */
    String uri() {
        return scheme + "://127.0.0.1:" + ((InetSocketAddress) listener.localAddress()).getPort();
    }

    Transports transports() {
        return transports;
    }

    @Override
    public void close() throws InterruptedException {
        listener.close().sync();
        transports.close();
    }
}
