package io.ferry.transport.udt;

import io.ferry.transport.Transport;
import io.ferry.transport.TransportProvider;

import java.util.List;

/** Registers {@code udt://} with {@link io.ferry.transport.Transports} through {@link java.util.ServiceLoader}. */
public final class UdtTransportProvider implements TransportProvider {

    @Override
    public String name() {
        return UdtTransport.NAME;
    }

    @Override
    public List<String> schemes() {
        return List.of(UdtTransport.NAME);
    }

    /** UDT in Java on Ferry's own engine: available wherever the JVM runs. */
    @Override
    public Transport create() {
        return new UdtTransport();
    }
}
