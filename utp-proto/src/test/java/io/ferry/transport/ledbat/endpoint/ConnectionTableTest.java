package io.ferry.transport.ledbat.endpoint;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The table's routes, and the remembered last route never outliving a change of the table. */
class ConnectionTableTest {

    private final InetSocketAddress peer = new InetSocketAddress("127.0.0.1", 4000);

    @Test
    void aRouteIsFoundByAnEqualAddressAndTheIdsLow16Bits() {
        ConnectionTable<String> table = new ConnectionTable<>(42);
        table.put(peer, 7, "a");
        assertEquals("a", table.get(new InetSocketAddress("127.0.0.1", 4000), 7));
        assertEquals("a", table.get(peer, 7 + 0x10000), "ids are 16 bits on the wire");
        assertNull(table.get(new InetSocketAddress("127.0.0.1", 4001), 7), "another port");
        assertNull(table.get(peer, 8), "another id");
    }

    @Test
    void theRememberedRouteIsForgottenWhenTheTableChanges() {
        ConnectionTable<String> table = new ConnectionTable<>(42);
        table.put(peer, 7, "a");
        assertEquals("a", table.get(peer, 7));
        assertEquals(true, table.remove(peer, 7, "a"));
        assertNull(table.get(peer, 7), "a removed connection is not routed to");
        table.put(peer, 7, "b");
        assertEquals("b", table.get(peer, 7));
        table.put(peer, 7, "c");
        assertEquals("c", table.get(peer, 7), "a replaced entry routes to the new connection");
        table.clear();
        assertNull(table.get(peer, 7));
    }
}
