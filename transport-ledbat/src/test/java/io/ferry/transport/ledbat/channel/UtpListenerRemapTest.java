package io.ferry.transport.ledbat.channel;

import io.ferry.transport.conformance.ListenerSocketRemapContract;
import io.netty.channel.Channel;

/** {@link ListenerSocketRemapContract} over utp: packets and retransmitted SYNs follow their connection's socket. */
class UtpListenerRemapTest extends ListenerSocketRemapContract {
    @Override
    protected String scheme() {
        return "utp";
    }

    @Override
    protected int sockets(Channel listener) {
        return ((UtpServerChannel) listener).sockets();
    }

    @Override
    protected long handedOver(Channel listener) {
        return ((UtpServerChannel) listener).handedOverDatagrams();
    }
}
