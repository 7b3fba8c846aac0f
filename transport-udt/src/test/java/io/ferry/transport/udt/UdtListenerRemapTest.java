package io.ferry.transport.udt;

import io.ferry.transport.conformance.ListenerSocketRemapContract;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    /** The contract reads this transport's listener through these accessors: a fresh one has sockets and has handed nothing over. */
    @Test
    void aFreshListenerReportsItsSocketsAndNoHandOver() throws Exception {
        try (Transports ferry = Transports.create()) {
            Channel listener = ferry.listen("udt://127.0.0.1:0", new ChannelInboundHandlerAdapter()).sync().channel();
            try {
                assertTrue(sockets(listener) >= 1, "a listener receives on at least one socket");
                assertEquals(0, handedOver(listener), "nothing was handed between sockets before any peer came");
            } finally {
                listener.close().sync();
            }
        }
    }
}
