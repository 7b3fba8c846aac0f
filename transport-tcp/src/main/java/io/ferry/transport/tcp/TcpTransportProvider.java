package io.ferry.transport.tcp;

import io.ferry.transport.Transport;
import io.ferry.transport.TransportProvider;

import java.util.List;

/** Registers TCP under the {@code tcp} scheme. */
public final class TcpTransportProvider implements TransportProvider {

    private final TcpIo io;

    /** The provider {@link java.util.ServiceLoader} uses: native epoll where available, NIO otherwise. */
    public TcpTransportProvider() {
        this(TcpIo.detect());
    }

    /** A provider bound to a given I/O implementation (e.g. {@link TcpIo#nio()} to force Java NIO). */
    public TcpTransportProvider(TcpIo io) {
        this.io = io;
    }

    @Override
    public String name() {
        return TcpTransport.NAME;
    }

    @Override
    public List<String> schemes() {
        return List.of(TcpTransport.NAME);
    }

    @Override
    public Transport create() {
        return new TcpTransport(io);
    }
}
