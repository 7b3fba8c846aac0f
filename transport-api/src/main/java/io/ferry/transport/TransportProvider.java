package io.ferry.transport;

import java.util.List;

/**
 * The service-provider interface of a transport, registered in
 * {@code META-INF/services/io.ferry.transport.TransportProvider}. Adding a transport's jar to the
 * class path is all it takes to make its URI schemes available through {@link Transports}. A transport
 * that runs over another one, chosen by an option, is a {@link LayerProvider} instead.
 */
public interface TransportProvider {

    /** The transport's canonical name, which is also its first scheme (e.g. {@code utp}). */
    String name();

    /** Every URI scheme this transport answers to, canonical name first (e.g. {@code utp}, {@code ledbat}). */
    List<String> schemes();

    /**
     * Creates a transport instance. It may start threads lazily; {@link Transport#close()} stops them.
     *
     * @throws TransportUnavailableException if the transport cannot run on this platform
     */
    Transport create();
}
