package io.ferry.transport.quic;

import io.ferry.transport.Transport;
import io.ferry.transport.TransportProvider;
import io.ferry.transport.TransportUnavailableException;
import io.netty.handler.codec.quic.Quic;

import java.util.List;

/** Registers QUIC under the {@code quic} scheme, where Netty's native QUIC codec loads on this platform. */
public final class QuicTransportProvider implements TransportProvider {

    @Override
    public String name() {
        return QuicTransport.NAME;
    }

    @Override
    public List<String> schemes() {
        return List.of(QuicTransport.NAME);
    }

    /** @throws TransportUnavailableException if the codec's native library (quiche, BoringSSL) cannot load here */
    @Override
    public Transport create() {
        boolean available;
        try {
            available = Quic.isAvailable();
        } catch (LinkageError missing) {
            throw new TransportUnavailableException("quic:// needs Netty's QUIC codec (io.netty:netty-codec-classes-quic and "
                    + "netty-codec-native-quic) on the class path: " + missing, missing);
        }
        if (!available) {
            Throwable cause = Quic.unavailabilityCause();
            throw new TransportUnavailableException("quic:// needs Netty's native QUIC codec, which cannot load on "
                    + System.getProperty("os.name") + "/" + System.getProperty("os.arch") + ": " + cause, cause);
        }
        return new QuicTransport(QuicIo.detect());
    }
}
