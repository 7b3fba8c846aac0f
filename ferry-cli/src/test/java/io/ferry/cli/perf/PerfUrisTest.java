package io.ferry.cli.perf;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Specs to transport URIs: the congestion control is perf's part of a spec, IPv6 hosts get brackets. */
class PerfUrisTest {

    @Test
    void theCongestionControlLeavesTheUriAndBecomesTheConnectionsOption() {
        assertEquals("utp://h:9301?streams=4", PerfUris.uri("utp?streams=4&cc=cubic", "h", 9301));
        assertEquals("cubic", PerfUris.cc("utp?streams=4&cc=cubic"));
        assertEquals("utp://h:9301", PerfUris.uri("utp?cc=bbr", "h", 9301));
        assertEquals("bbr", PerfUris.cc("utp?cc=bbr"));
        assertEquals("tcp://h:1?streams=2", PerfUris.uri("tcp?cc=reno&streams=2", "h", 1));
        assertNull(PerfUris.cc("tcp?streams=2"));
        assertNull(PerfUris.cc("udt"));
        assertEquals("utp", PerfUris.scheme("utp?streams=4&cc=cubic"));
    }

    @Test
    void ipv6HostsAreBracketed() throws Exception {
        assertEquals("[::1]", PerfUris.host("::1"));
        assertEquals("[::1]", PerfUris.host("[::1]"));
        assertEquals("example.net", PerfUris.host("example.net"));
        assertEquals("[0:0:0:0:0:0:0:1]", PerfUris.hostLiteral(InetAddress.getByName("::1")));
        assertEquals("127.0.0.1", PerfUris.hostLiteral(InetAddress.getByName("127.0.0.1")));
    }
}
