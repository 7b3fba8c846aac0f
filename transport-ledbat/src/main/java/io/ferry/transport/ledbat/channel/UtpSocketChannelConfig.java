package io.ferry.transport.ledbat.channel;

import io.ferry.transport.spi.StreamChannelConfig;

/** A uTP connection's Netty-level configuration ({@link StreamChannelConfig}): its buffers are the protocol settings'. */
public final class UtpSocketChannelConfig extends StreamChannelConfig {

    UtpSocketChannelConfig(UtpSocketChannel channel, Runnable autoReadCleared) {
        super(channel,
                () -> channel.settings() == null ? 0 : channel.settings().protocol.receiveBufferSize(),
                () -> channel.settings() == null ? 0 : channel.settings().protocol.sendBufferSize(),
                autoReadCleared);
    }
}
