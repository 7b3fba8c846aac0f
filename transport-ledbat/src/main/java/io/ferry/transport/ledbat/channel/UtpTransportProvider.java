package io.ferry.transport.ledbat.channel;

import io.ferry.transport.udp.UdpIo;

import io.ferry.transport.Transport;
import io.ferry.transport.TransportProvider;

import java.util.List;

/** Registers uTP/LEDBAT under the {@code utp} scheme and its alias {@code ledbat}. */
public final class UtpTransportProvider implements TransportProvider {

    private final UdpIo io;

    /** The provider {@link java.util.ServiceLoader} uses: native epoll UDP where available. */
    public UtpTransportProvider() {
        this(UdpIo.detect("ferry.utp"));
    }

    /** A provider bound to a given UDP implementation. */
    public UtpTransportProvider(UdpIo io) {
        this.io = io;
    }

    @Override
    public String name() {
        return UtpTransport.NAME;
    }

    @Override
    public List<String> schemes() {
        return List.of(UtpTransport.NAME, "ledbat");
    }

    @Override
    public Transport create() {
        return new UtpTransport(io);
    }
}
