package io.ferry.transport.striped;

import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.LayerProvider;
import io.ferry.transport.Transport;
import io.netty.channel.ChannelOption;

/**
 * Registers striping as a layer over every transport: a connection or listener with
 * {@link FerryChannelOption#STREAMS} (or {@code ?streams=N} on its URI) is a {@link StripedChannel} over
 * that many connections of the transport its scheme names.
 */
public final class StripedLayerProvider implements LayerProvider {

    @Override
    public String name() {
        return "striped";
    }

    @Override
    public ChannelOption<?> option() {
        return FerryChannelOption.STREAMS;
    }

    @Override
    public Transport createOver(Transport carrier) {
        return StripedTransport.over(carrier);
    }
}
