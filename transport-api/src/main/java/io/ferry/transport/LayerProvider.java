package io.ferry.transport;

import io.netty.channel.ChannelOption;

/**
 * The service-provider interface of a layer: a transport that runs over whichever transport a URI names,
 * chosen by an option rather than a scheme (striping, {@link FerryChannelOption#STREAMS}). Registered in
 * {@code META-INF/services/io.ferry.transport.LayerProvider}; adding the layer's jar to the class path is
 * all it takes for {@link Transports} to route the channels that ask for it.
 */
public interface LayerProvider {

    /** The layer's name (e.g. {@code striped}), for messages and statistics. */
    String name();

    /** The option whose presence on a connection or listener routes it through this layer. */
    ChannelOption<?> option();

    /** Creates the layer over {@code carrier}, one instance per carrier; {@link Transports} closes it before the carrier. */
    Transport createOver(Transport carrier);
}
