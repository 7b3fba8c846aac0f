package io.ferry.bench.netns;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.transfer.Peer;
import io.ferry.bench.transfer.Transfer;
import io.ferry.bench.transfer.TransferResult;
import io.ferry.transport.Transports;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Topologies come up with their interfaces and sysctls, carry every transport between the namespaces, and leave nothing behind. */
class TopologyTest {

    @BeforeAll
    static void needsRoot() {
        RootAccess.missing().ifPresent(reason -> System.out.println("SKIPPED TopologyTest: " + reason));
        assumeTrue(RootAccess.available(), () -> "skipped: " + RootAccess.missing().orElse(""));
    }

    @Test
    void emulatedTopologyIsConfiguredAndTornDownWithoutLeftovers() throws Exception {
        List<String> before = Topology.existingNamespaces();
        String client;
        String server;
        try (Topology t = Topology.emulated(LinkModel.delay(Duration.ofMillis(1)), LinkModel.delay(Duration.ofMillis(1)))) {
            client = t.client().name();
            server = t.server().name();
            assertTrue(Topology.existingNamespaces().containsAll(List.of(client, server)));
            assertTrue(t.client().ip("addr", "show", "dev", "ferry0").contains(Topology.CLIENT_ADDRESS));
            assertTrue(t.server().ip("addr", "show", "dev", "ferry0").contains(Topology.SERVER_ADDRESS));
            assertTrue(t.client().readSysctl("net.ipv4.tcp_rmem").endsWith(String.valueOf(64L << 20)));
            assertEquals("1", t.server().readSysctl("net.ipv4.tcp_no_metrics_save"));
        }
        List<String> after = Topology.existingNamespaces();
        assertFalse(after.contains(client) || after.contains(server), "namespaces left behind: " + after);
        assertEquals(before, after);
        assertFalse(Commands.run("ip", "link", "show").contains("ferry0"), "no ferry interface in the root namespace");
    }

    @Test
    void vethTopologyIsTornDownWithoutLeftovers() throws Exception {
        List<String> before = Topology.existingNamespaces();
        try (Topology t = Topology.veth()) {
            assertTrue(t.server().ip("addr", "show", "dev", "ferry1").contains(Topology.SERVER_ADDRESS));
        }
        assertEquals(before, Topology.existingNamespaces());
    }

    @Test
    void everyInstalledTransportCarriesAFileBetweenTheNamespaces() throws Exception {
        List<String> transports;
        try (Transports t = Transports.create()) {
            transports = t.transportNames();
        }
        try (Topology t = Topology.emulated(LinkModel.delay(Duration.ofMillis(5)), LinkModel.delay(Duration.ofMillis(5)));
             Peer client = Peer.on(t.clientHost());
             Peer server = Peer.on(t.serverHost())) {
            for (String transport : transports) {
                // The server's address exists only in the server namespace and the client reaches it only
                // through the emulator, so success proves both peers' sockets live in their namespaces.
                TransferResult r = Transfer.of(transport).run(client, server, 300_000, Duration.ofSeconds(30));
                assertTrue(r.ok(), transport + ": " + r.failure());
            }
            assertTrue(t.emulator().orElseThrow().forward().statistics().accepted() > 200);
        }
    }
}
