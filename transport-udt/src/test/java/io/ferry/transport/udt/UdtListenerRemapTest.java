package io.ferry.transport.udt;

import io.ferry.transport.conformance.ListenerSocketRemapContract;
import io.netty.channel.Channel;

/** {@link ListenerSocketRemapContract} over udt: datagrams and repeated requests follow their connection's socket. */
class UdtListenerRemapTest extends ListenerSocketRemapContract {
    @Override
    protected String scheme() {
        return "udt";
    }

    @Override
    protected int sockets(Channel listener) {
        return ((UdtServerChannel) listener).sockets();
    }

    @Override
    protected long handedOver(Channel listener) {
        return ((UdtServerChannel) listener).handedOverDatagrams();
    }
}
