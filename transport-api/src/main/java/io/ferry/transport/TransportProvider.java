package io.ferry.transport;

import io.netty.channel.ChannelOption;

import java.util.List;

/**
 * The service-provider interface of a transport, registered in
 * {@code META-INF/services/io.ferry.transport.TransportProvider}. Adding a transport's jar to the
 * class path is all it takes to make its URI schemes available through {@link Transports}.
 *
 * <p>A provider may instead offer a <em>layer</em>: a transport that runs over whichever transport a URI
 * names, chosen by an option rather than a scheme (striping, {@link FerryChannelOption#STREAMS}). It has
 * no schemes, names its option in {@link #layerOption()} and makes its transport in {@link #createOver}.
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

    /**
     * For a layer: the option whose presence on a connection or listener routes it through this layer.
     * Null, the default, for a transport of its own schemes.
     */
    default ChannelOption<?> layerOption() {
        return null;
    }

    /**
     * For a layer: creates it over {@code carrier}, one instance per carrier; {@link Transports} closes it
     * before the carrier.
     *
     * @throws UnsupportedOperationException for a transport of its own schemes
     */
    default Transport createOver(Transport carrier) {
        throw new UnsupportedOperationException(name() + " is a transport of its own, not a layer over another");
    }
}
