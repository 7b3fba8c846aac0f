package io.ferry.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TransportUriTest {

    @Test
    void parsesSchemeHostAndPort() {
        TransportUri uri = TransportUri.parse("TCP://example.org:9000", false);
        assertEquals("tcp", uri.scheme());
        assertEquals("example.org", uri.host());
        assertEquals(9000, uri.port());
    }

    @Test
    void parsesBracketedIpv6Literal() {
        TransportUri uri = TransportUri.parse("utp://[::1]:6881", false);
        assertEquals("::1", uri.host());
        assertEquals(6881, uri.port());
    }

    @Test
    void acceptsPortZeroOnlyForListeners() {
        assertEquals(0, TransportUri.parse("tcp://0.0.0.0:0", true).port());
        assertMessage("port 0", () -> TransportUri.parse("tcp://127.0.0.1:0", false));
    }

    @Test
    void rejectsMissingPortNamingTheProblem() {
        assertMessage("has no port", () -> TransportUri.parse("tcp://localhost", false));
    }

    @Test
    void rejectsMissingScheme() {
        assertMessage("no scheme", () -> TransportUri.parse("//localhost:9000", false));
    }

    @Test
    void rejectsOpaqueUri() {
        assertMessage("missing '//'", () -> TransportUri.parse("tcp:localhost:9000", false));
    }

    @Test
    void rejectsMalformedText() {
        assertMessage("malformed transport URI", () -> TransportUri.parse("tcp://bad host:9000", false));
    }

    @Test
    void rejectsPathQueryAndUserInfo() {
        assertMessage("path or fragment", () -> TransportUri.parse("tcp://h:1/file", false));
        assertMessage("the only query a transport URI takes is streams=N", () -> TransportUri.parse("tcp://h:1?x=1", false));
        assertMessage("user information", () -> TransportUri.parse("tcp://me@h:1", false));
    }

    @Test
    void readsTheNumberOfStripedStreams() {
        TransportUri uri = TransportUri.parse("tcp://h:1?streams=4", false);
        assertEquals(4, uri.streams().getAsInt());
        assertEquals(4, uri.withStreams(io.ferry.transport.ChannelOptions.empty()).get(FerryChannelOption.STREAMS).orElseThrow());
        assertTrue(TransportUri.parse("tcp://h:1", false).streams().isEmpty());
        assertMessage("from 1 to 64, got 65", () -> TransportUri.parse("tcp://h:1?streams=65", false));
        assertMessage("a number from 1 to 64, got 'four'", () -> TransportUri.parse("tcp://h:1?streams=four", false));
        assertMessage("streams=N", () -> TransportUri.parse("tcp://h:1?streams=2&x=1", false));
        assertMessage("asks for 4 streams but the options ask for STREAMS=2", () -> uri.withStreams(
                io.ferry.transport.ChannelOptions.builder().set(FerryChannelOption.STREAMS, 2).build()));
    }

    @Test
    void rejectsEmptyInput() {
        assertMessage("empty transport URI", () -> TransportUri.parse("  ", false));
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), "message '" + e.getMessage() + "' contains '" + expected + "'");
    }
}
