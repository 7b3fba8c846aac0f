package io.ferry.transport.striped;

import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.Transport;
import io.ferry.transport.TransportProvider;
import io.netty.channel.ChannelOption;

import java.util.List;

/**
 * Registers striping as a layer over every transport: a connection or listener with
 * {@link FerryChannelOption#STREAMS} (or {@code ?streams=N} on its URI) is a {@link StripedChannel} over
 * that many connections of the transport its scheme names.
 */
public final class StripedTransportProvider implements TransportProvider {

    @Override
    public String name() {
        return "striped";
    }

    /** None: striping is chosen by {@link FerryChannelOption#STREAMS} on any transport's URI, not by a scheme. */
    @Override
    public List<String> schemes() {
        return List.of();
    }

    @Override
    public Transport create() {
        throw new UnsupportedOperationException("striping runs over another transport: use createOver");
    }

    @Override
    public ChannelOption<?> layerOption() {
        return FerryChannelOption.STREAMS;
    }

    @Override
    public Transport createOver(Transport carrier) {
        return StripedTransport.over(carrier);
    }
}
