package io.ferry.bench.engines;

import io.ferry.flight.FerryFlight;
import io.ferry.transport.Transports;
import org.apache.arrow.flight.AsyncPutListener;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Apache Arrow Flight over each Ferry transport against plain Flight (its own grpc-netty server and client
 * over the kernel's TCP) in the same run: a DoGet (the server streams record batches) and a DoPut (a
 * client-streaming gRPC call) of {@code --size} bytes of 1 MiB batches, median of {@code --rounds}, each
 * transport's rate and its ratio to plain Flight.
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp bench/target/benchmarks.jar io.ferry.bench.engines.FlightTransfer
 *      [--size 1G] [--rounds 3] [--transports plain,tcp,utp,udt,tcp?streams=4] [--host 127.0.0.1]
 *      [--emulated [--mbit 20] [--rtt-ms 100] [--loss 0.01] [--queue-ms 100] [--cc cubic]]
 * </pre>
 */
public final class FlightTransfer {

    static final int ROWS = 65_536;
    /** Two 64-bit columns: 1 MiB of values per batch. */
    static final Schema SCHEMA = new Schema(List.of(
            Field.notNullable("a", new ArrowType.Int(64, true)), Field.notNullable("b", new ArrowType.Int(64, true))));
    static final long BATCH_BYTES = ROWS * 16L;

    public static void main(String[] args) throws Exception {
        long size = EngineRuns.parseSize(EngineRuns.option(args, "--size", "1G"));
        int rounds = Integer.parseInt(EngineRuns.option(args, "--rounds", "3"));
        List<String> transports = Arrays.asList(EngineRuns.option(args, "--transports", "plain,tcp,utp,udt").split(","));
        String host = EngineRuns.option(args, "--host", "127.0.0.1");
        int batches = (int) Math.max(1, size / BATCH_BYTES);
        if (Arrays.asList(args).contains("--emulated")) {
            emulated(args, transports, batches, rounds);
            return;
        }

        System.out.printf(Locale.ROOT, "# Arrow Flight, %d batches of %d rows (%d MiB), median of %d rounds after one warm-up%n",
                batches, ROWS, batches * BATCH_BYTES >> 20, rounds);
        System.out.printf(Locale.ROOT, "%-13s %22s %9s %22s %9s%n", "", "DoGet Mbit/s (min-max)", "x plain", "DoPut Mbit/s (min-max)", "x plain");
        double plainGet = Double.NaN;
        double plainPut = Double.NaN;
        try (Transports ferry = Transports.create(); BufferAllocator allocator = new RootAllocator()) {
            for (String transport : transports) {
                double[] get = new double[rounds];
                double[] put = new double[rounds];
                try (Generated producer = new Generated(allocator)) {
                    FlightServer server = server(ferry, transport, host, allocator, producer).build().start();
                    try (FlightClient client = client(ferry, transport, host, server.getPort(), allocator)) {
                        doGet(client, batches); // warm-up
                        doPut(client, allocator, batches);
                        for (int r = 0; r < rounds; r++) {
                            get[r] = mbps(batches, doGet(client, batches));
                            put[r] = mbps(batches, doPut(client, allocator, batches));
                        }
                    } finally {
                        server.shutdown();
                        server.awaitTermination();
                        server.close();
                    }
                }
                double g = EngineRuns.median(get);
                double p = EngineRuns.median(put);
                if (transport.equals("plain")) {
                    plainGet = g;
                    plainPut = p;
                }
                System.out.printf(Locale.ROOT, "%-13s %8.0f (%5.0f-%5.0f) %9.2f %8.0f (%5.0f-%5.0f) %9.2f%n", transport,
                        g, EngineRuns.min(get), EngineRuns.max(get), g / plainGet, p, EngineRuns.min(put), EngineRuns.max(put), p / plainPut);
            }
        }
    }

    /**
     * The same transfers between two network namespaces behind the TUN emulator ({@code --emulated --mbit N
     * --rtt-ms N --loss FRACTION --queue-ms N}; root): the Flight server on the server peer's transports, the
     * client on the client peer's, so every socket lives in its namespace (a socket belongs to the namespace
     * of the thread that opens it: the server's bind and the client's first call run on the peers' threads,
     * plain Flight's too). {@code --cc} applies to Ferry's transports only: plain Flight's sockets take the
     * namespace's default, which an unprivileged default list may not let a namespace change (here: reno and
     * bbr allowed, bbr the default). No warm-up (a round is long).
     */
    private static void emulated(String[] args, List<String> transports, int batches, int rounds) throws Exception {
        io.ferry.bench.emulator.LinkArguments link = new io.ferry.bench.emulator.LinkArguments(20, 100, 0.01, 100);
        for (int i = 0; i < args.length; i++) {
            int taken = link.take(args, i);
            if (taken >= 0) {
                i = taken;
            }
        }
        String cc = EngineRuns.option(args, "--cc", "");
        io.ferry.transport.ChannelOptions options = cc.isEmpty() ? io.ferry.transport.ChannelOptions.empty()
                : io.ferry.transport.ChannelOptions.builder().set(io.ferry.transport.FerryChannelOption.CONGESTION_CONTROL, cc).build();
        io.ferry.bench.emulator.LinkModel model = link.model();
        System.out.printf(Locale.ROOT, "# congestion control: %s; plain Flight: the namespace's default%n",
                cc.isEmpty() ? "each transport's default (kernel TCP: the namespace's)" : cc + " for Ferry's transports");
        System.out.printf(Locale.ROOT, "# Arrow Flight over %s, %d batches of %d rows (%d MiB), median of %d rounds, no warm-up%n",
                model.describe(), batches, ROWS, batches * BATCH_BYTES >> 20, rounds);
        System.out.printf(Locale.ROOT, "%-13s %22s %9s %22s %9s%n", "", "DoGet Mbit/s (min-max)", "x plain", "DoPut Mbit/s (min-max)", "x plain");
        // one pair of namespaces for every transport: gRPC's shared executor threads, started in the first
        // run's namespaces, must find the same addresses in the later runs
        try (io.ferry.bench.scenario.TestBed bed = io.ferry.bench.scenario.TestBed.emulated(model);
             BufferAllocator allocator = new RootAllocator()) {
            String address = bed.serverAddress();
            double plainGet = Double.NaN;
            double plainPut = Double.NaN;
            for (String transport : transports) {
                double[] get = new double[rounds];
                double[] put = new double[rounds];
                try (Generated producer = new Generated(allocator)) {
                    FlightServer server = bed.server().call(() -> (transport.equals("plain")
                            ? FlightServer.builder(allocator, Location.forGrpcInsecure(address, 0), producer)
                            : FerryFlight.serverBuilder(bed.server().transports(), uri(transport, address, 0), allocator, producer, options))
                            .build().start());
                    try (FlightClient client = bed.client().call(() -> transport.equals("plain")
                            ? FlightClient.builder(allocator, Location.forGrpcInsecure(address, server.getPort())).build()
                            : FerryFlight.client(bed.client().transports(), uri(transport, address, server.getPort()), allocator, options))) {
                        // calls from the client peer's thread: gRPC opens its connection (the socket) in the
                        // thread of the first call, which must be in the client's namespace
                        for (int r = 0; r < rounds; r++) {
                            get[r] = mbps(batches, bed.client().call(() -> doGet(client, batches)));
                            put[r] = mbps(batches, bed.client().call(() -> doPut(client, allocator, batches)));
                        }
                    } finally {
                        server.shutdown();
                        server.awaitTermination();
                        server.close();
                    }
                }
                if (transport.equals("plain")) {
                    plainGet = EngineRuns.median(get);
                    plainPut = EngineRuns.median(put);
                }
                System.out.printf(Locale.ROOT, "%-13s %8.1f (%5.1f-%5.1f) %9.2f %8.1f (%5.1f-%5.1f) %9.2f%n", transport,
                        EngineRuns.median(get), EngineRuns.min(get), EngineRuns.max(get), EngineRuns.median(get) / plainGet, EngineRuns.median(put), EngineRuns.min(put), EngineRuns.max(put), EngineRuns.median(put) / plainPut);
            }
        }
    }

    /** The URI for a transport named as {@code scheme} or {@code scheme?streams=N} (striped). */
    private static String uri(String transport, String host, int port) {
        int q = transport.indexOf('?');
        return q < 0 ? transport + "://" + host + ":" + port
                : transport.substring(0, q) + "://" + host + ":" + port + transport.substring(q);
    }

    private static FlightServer.Builder server(Transports ferry, String transport, String host, BufferAllocator allocator,
                                               Generated producer) {
        return transport.equals("plain")
                ? FlightServer.builder(allocator, Location.forGrpcInsecure(host, 0), producer)
                : FerryFlight.serverBuilder(ferry, uri(transport, host, 0), allocator, producer);
    }

    private static FlightClient client(Transports ferry, String transport, String host, int port, BufferAllocator allocator) {
        return transport.equals("plain")
                ? FlightClient.builder(allocator, Location.forGrpcInsecure(host, port)).build()
                : FerryFlight.client(ferry, uri(transport, host, port), allocator);
    }

    /** Nanoseconds to receive {@code batches} batches with DoGet; the rows counted must be all of them. */
    static long doGet(FlightClient client, int batches) throws Exception {
        long start = System.nanoTime();
        long rows = 0;
        try (FlightStream stream = client.getStream(new Ticket(Integer.toString(batches).getBytes(StandardCharsets.UTF_8)))) {
            while (stream.next()) {
                rows += stream.getRoot().getRowCount();
            }
        }
        long took = System.nanoTime() - start;
        if (rows != (long) batches * ROWS) {
            throw new IllegalStateException("DoGet brought " + rows + " rows, not " + (long) batches * ROWS);
        }
        return took;
    }

    /** Nanoseconds to send {@code batches} batches with DoPut, until the server acknowledged the stream. */
    static long doPut(FlightClient client, BufferAllocator allocator, int batches) {
        try (VectorSchemaRoot root = filled(allocator)) {
            long start = System.nanoTime();
            FlightClient.ClientStreamListener put = client.startPut(FlightDescriptor.path("sink"), root, new AsyncPutListener());
            for (int b = 0; b < batches; b++) {
                put.putNext();
            }
            put.completed();
            put.getResult();
            return System.nanoTime() - start;
        }
    }

    static VectorSchemaRoot filled(BufferAllocator allocator) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        BigIntVector a = (BigIntVector) root.getVector("a");
        BigIntVector b = (BigIntVector) root.getVector("b");
        a.allocateNew(ROWS);
        b.allocateNew(ROWS);
        for (int i = 0; i < ROWS; i++) {
            a.set(i, i);
            b.set(i, -i);
        }
        root.setRowCount(ROWS);
        return root;
    }

    /** Streams the number of batches its ticket names (the same batch again and again) and drains what is put. */
    static final class Generated extends NoOpFlightProducer implements AutoCloseable {
        private final BufferAllocator allocator;
        private final java.util.concurrent.atomic.AtomicLong batchesPut = new java.util.concurrent.atomic.AtomicLong();

        Generated(BufferAllocator allocator) {
            this.allocator = allocator;
        }

        @Override
        public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
            int batches = Integer.parseInt(new String(ticket.getBytes(), StandardCharsets.UTF_8));
            try (VectorSchemaRoot root = filled(allocator)) {
                listener.start(root);
                for (int b = 0; b < batches && !listener.isCancelled(); b++) {
                    while (!listener.isReady() && !listener.isCancelled()) {
                        Thread.onSpinWait(); // gRPC's flow control: wait for room, as Flight's examples do
                    }
                    listener.putNext();
                }
                listener.completed();
            }
        }

        @Override
        public Runnable acceptPut(CallContext context, FlightStream stream, StreamListener<PutResult> ack) {
            return () -> {
                while (stream.next()) {
                    batchesPut.incrementAndGet(); // the batch is released when the next one arrives
                }
                ack.onCompleted();
            };
        }

        /** Bytes the server has taken with DoPut so far (whole batches). */
        long bytesPut() {
            return batchesPut.get() * BATCH_BYTES;
        }

        @Override
        public void close() {
        }
    }

    private static double mbps(int batches, long nanos) {
        return batches * BATCH_BYTES * 8 / (nanos / 1e9) / 1e6;
    }

    private FlightTransfer() {
    }
}
