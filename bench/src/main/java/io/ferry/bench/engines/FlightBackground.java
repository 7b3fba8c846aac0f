package io.ferry.bench.engines;

import io.ferry.bench.emulator.LinkArguments;
import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.scenario.TestBed;
import io.ferry.bench.transfer.StreamingFlow;
import io.ferry.flight.FerryFlight;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import org.apache.arrow.flight.AsyncPutListener;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A background Arrow Flight transfer over a scavenger transport (uTP with LEDBAT by default) while a
 * foreground TCP flow joins, between two namespaces behind the TUN emulator (root): Flight DoPut streams
 * 1 MiB batches from the client peer for {@code --alone} seconds alone, then a bulk TCP flow
 * ({@code --tcp-cc}, the kernel's) starts the same way and both run {@code --after} seconds more. Prints
 * both rates every 500 ms and the background's share of the link and of the two flows from 2 s after the
 * join, the figure the scavenger is judged by.
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp bench/target/benchmarks.jar io.ferry.bench.engines.FlightBackground
 *      [--transport utp] [--tcp-cc cubic] [--alone 10] [--after 20] [--mbit 100] [--rtt-ms 20] [--queue-ms 150] [--loss 0]
 * </pre>
 */
public final class FlightBackground {

    public static void main(String[] args) throws Exception {
        LinkArguments link = new LinkArguments(100, 20, 0, 150);
        for (int i = 0; i < args.length; i++) {
            int taken = link.take(args, i);
            if (taken >= 0) {
                i = taken;
            }
        }
        String transport = EngineRuns.option(args, "--transport", "utp");
        String tcpCc = EngineRuns.option(args, "--tcp-cc", "cubic");
        int alone = Integer.parseInt(EngineRuns.option(args, "--alone", "10"));
        int after = Integer.parseInt(EngineRuns.option(args, "--after", "20"));
        LinkModel model = link.model();
        System.out.printf(Locale.ROOT, "# background Flight DoPut over %s, foreground TCP %s joins at %d s; %s%n",
                transport, tcpCc, alone, model.describe());
        System.out.printf(Locale.ROOT, "%6s %14s %14s%n", "t s", "flight Mbit/s", "tcp Mbit/s");
        try (TestBed bed = TestBed.emulated(model); BufferAllocator allocator = new RootAllocator();
             FlightTransfer.Generated producer = new FlightTransfer.Generated(allocator)) {
            String address = bed.serverAddress();
            FlightServer server = bed.server().call(() -> FerryFlight.serverBuilder(bed.server().transports(),
                    transport + "://" + address + ":0", allocator, producer).build().start());
            AtomicBoolean stop = new AtomicBoolean();
            FlightClient client = bed.client().call(() -> FerryFlight.client(bed.client().transports(),
                    transport + "://" + address + ":" + server.getPort(), allocator));
            VectorSchemaRoot root = FlightTransfer.filled(allocator);
            // the call starts on the client peer's thread, so that its connection is made in that namespace
            FlightClient.ClientStreamListener put = bed.client().call(() -> {
                FlightClient.ClientStreamListener p = client.startPut(FlightDescriptor.path("background"), root, new AsyncPutListener());
                p.putNext();
                return p;
            });
            Thread pump = new Thread(() -> {
                while (!stop.get()) {
                    if (put.isReady()) {
                        put.putNext();
                    } else {
                        Thread.onSpinWait();
                    }
                }
                put.completed();
            }, "flight-background");
            pump.start();
            StreamingFlow tcp = null;
            double flightAfter = 0;
            double tcpAfter = 0;
            int afterSamples = 0;
            try {
                long lastFlight = producer.bytesPut();
                long lastTcp = 0;
                for (int tick = 1; tick <= (alone + after) * 2; tick++) {
                    Thread.sleep(500);
                    if (tick == alone * 2) {
                        tcp = StreamingFlow.start("tcp-" + tcpCc, "tcp", ChannelOptions.builder()
                                .set(FerryChannelOption.CONGESTION_CONTROL, tcpCc).build(), bed.client(), bed.server());
                    }
                    long f = producer.bytesPut();
                    long t = tcp == null ? 0 : tcp.receivedBytes();
                    double fm = (f - lastFlight) * 8 / 0.5 / 1e6;
                    double tm = (t - lastTcp) * 8 / 0.5 / 1e6;
                    lastFlight = f;
                    lastTcp = t;
                    System.out.printf(Locale.ROOT, "%6.1f %14.1f %14.1f%n", tick / 2.0, fm, tm);
                    if (tick > (alone + 2) * 2) {
                        flightAfter += fm;
                        tcpAfter += tm;
                        afterSamples++;
                    }
                }
            } finally {
                stop.set(true);
                pump.join(10_000);
                if (tcp != null) {
                    tcp.close();
                }
                root.close();
                client.close();
                server.shutdown();
                server.awaitTermination();
                server.close();
            }
            double flight = flightAfter / afterSamples;
            double other = tcpAfter / afterSamples;
            System.out.printf(Locale.ROOT, "# from 2 s after the join: flight %.1f Mbit/s (%.1f %% of the link, %.1f %% of both flows), tcp %.1f Mbit/s%n",
                    flight, 100 * flight / link.mbit(), 100 * flight / (flight + other), other);
        }
    }

    private FlightBackground() {
    }
}
