package io.ferry.flight;

import io.ferry.transport.Transports;
import org.apache.arrow.flight.AsyncPutListener;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Arrow Flight's own server and client over each transport: record batches put with DoPut come back from DoGet, checked row by row. */
class FerryFlightTest {

    private static final Transports FERRY = Transports.create();
    private static final Schema SCHEMA = new Schema(List.of(
            Field.nullable("id", new ArrowType.Int(64, true)), Field.nullable("name", ArrowType.Utf8.INSTANCE)));
    private static final int BATCHES = 24;
    private static final int ROWS = 4096;

    @AfterAll
    static void close() {
        FERRY.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "utp", "udt", "quic", "tcp?streams=4", "utp?streams=2"})
    void batchesPutComeBackFromGet(String scheme) throws Exception {
        try (BufferAllocator allocator = new RootAllocator(); RecordStore store = new RecordStore(allocator.newChildAllocator("store", 0, Long.MAX_VALUE))) {
            FlightServer server = FerryFlight.serverBuilder(FERRY, uri(scheme, 0), allocator, store).build().start();
            try (FlightClient client = FerryFlight.client(FERRY, uri(scheme, server.getPort()), allocator)) {
                put(client, allocator, "numbers");
                long rows = 0;
                try (FlightStream stream = client.getStream(new Ticket("numbers".getBytes(StandardCharsets.UTF_8)))) {
                    while (stream.next()) {
                        VectorSchemaRoot root = stream.getRoot();
                        BigIntVector id = (BigIntVector) root.getVector("id");
                        VarCharVector name = (VarCharVector) root.getVector("name");
                        for (int i = 0; i < root.getRowCount(); i++, rows++) {
                            assertEquals(rows, id.get(i));
                            assertEquals("row-" + rows, new String(name.get(i), StandardCharsets.UTF_8));
                        }
                    }
                }
                assertEquals((long) BATCHES * ROWS, rows);
                if (!scheme.startsWith("tcp")) {
                    assertNoTcpListener(server.getPort()); // the calls went over the UDP transport
                }
            } finally {
                server.close(); // Flight's: shutdown, then shutdownNow after 3 s, so a failed call cannot hold the test
            }
        }
    }

    /**
     * Once its client left, a Flight server over striped connections shuts down without running out its wait:
     * the striped channels close at the client's end of stream themselves, as single connections do.
     */
    @ParameterizedTest
    @ValueSource(strings = {"tcp?streams=4", "utp?streams=4"})
    void aStripedServerShutsDownWithoutWaitingOnceTheClientLeft(String scheme) throws Exception {
        try (BufferAllocator allocator = new RootAllocator(); RecordStore store = new RecordStore(allocator.newChildAllocator("store", 0, Long.MAX_VALUE))) {
            FlightServer server = FerryFlight.serverBuilder(FERRY, uri(scheme, 0), allocator, store).build().start();
            try {
                try (FlightClient client = FerryFlight.client(FERRY, uri(scheme, server.getPort()), allocator)) {
                    put(client, allocator, "numbers");
                    try (FlightStream stream = client.getStream(new Ticket("numbers".getBytes(StandardCharsets.UTF_8)))) {
                        while (stream.next()) {
                            assertEquals(ROWS, stream.getRoot().getRowCount());
                        }
                    }
                }
                long start = System.nanoTime();
                server.shutdown();
                // Flight's own close waits 3 s before it forces the shutdown; grpc-netty waits 10 s for a gone peer's PING
                assertTrue(server.awaitTermination(2900, java.util.concurrent.TimeUnit.MILLISECONDS),
                        "the server shut down by itself, within Flight's 3 s (" + (System.nanoTime() - start) / 1_000_000 + " ms)");
            } finally {
                server.close();
            }
        }
    }

    /** A loopback URI for {@code spec} ({@code scheme} or {@code scheme?query}) and {@code port}. */
    private static String uri(String spec, int port) {
        int q = spec.indexOf('?');
        return q < 0 ? spec + "://127.0.0.1:" + port : spec.substring(0, q) + "://127.0.0.1:" + port + spec.substring(q);
    }

    @Test
    void anUnknownOptionIsRefusedByName() {
        try (BufferAllocator allocator = new RootAllocator(); RecordStore store = new RecordStore(allocator)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> FerryFlight.serverBuilder(FERRY, "tcp://127.0.0.1:0?stream=4", allocator, store));
            assertTrue(e.getMessage().contains("stream"), e.getMessage());
        }
    }

    private static void put(FlightClient client, BufferAllocator allocator, String name) {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
            FlightClient.ClientStreamListener put = client.startPut(FlightDescriptor.path(name), root, new AsyncPutListener());
            BigIntVector id = (BigIntVector) root.getVector("id");
            VarCharVector text = (VarCharVector) root.getVector("name");
            long next = 0;
            for (int b = 0; b < BATCHES; b++) {
                root.allocateNew();
                for (int i = 0; i < ROWS; i++, next++) {
                    id.setSafe(i, next);
                    text.setSafe(i, ("row-" + next).getBytes(StandardCharsets.UTF_8));
                }
                root.setRowCount(ROWS);
                put.putNext();
            }
            put.completed();
            put.getResult();
        }
    }

    private static void assertNoTcpListener(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            assertFalse(true, "a TCP listener answered on " + port);
        } catch (IOException refused) {
            // nothing listens on TCP there
        }
    }
}
