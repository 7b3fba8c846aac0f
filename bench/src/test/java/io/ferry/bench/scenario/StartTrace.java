package io.ferry.bench.scenario;

import io.ferry.bench.emulator.LinkModel;
import io.ferry.bench.transfer.StreamingFlow;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.TransportStatistics;

import java.time.Duration;

/**
 * Diagnosis: a flow's first seconds on an emulated link (by default study 1's: 200 Mbit/s, 150 ms RTT,
 * one BDP of queue), sampled every 50 ms. Args: {@code scheme seconds [warm|cold] [Mbit/s RTT-ms loss queue-ms]}.
 */
public final class StartTrace {
    public static void main(String[] args) throws Exception {
        String scheme = args[0];
        double seconds = Double.parseDouble(args[1]);
        long rate = args.length > 3 ? (long) (Double.parseDouble(args[3]) * 1e6) : BufferSweepStudy.RATE;
        Duration oneWay = args.length > 4 ? Duration.ofMillis(Long.parseLong(args[4]) / 2) : BufferSweepStudy.ONE_WAY;
        double loss = args.length > 5 ? Double.parseDouble(args[5]) : 0;
        long queue = LinkModel.queueFor(rate, args.length > 6 ? Duration.ofMillis(Long.parseLong(args[6])) : oneWay.multipliedBy(2));
        LinkModel link = new LinkModel(loss, rate, queue, oneWay, 11);
        try (TestBed bed = TestBed.emulated(link)) {
            if (args.length > 2 && args[2].equals("warm")) {
                try (StreamingFlow warm = StreamingFlow.start("warm", scheme, ChannelOptions.empty(), bed.client(), bed.server())) {
                    Thread.sleep(8000);
                }
            }
            long t0 = System.nanoTime();
            try (StreamingFlow f = StreamingFlow.start("f", scheme, ChannelOptions.empty(), bed.client(), bed.server())) {
                System.out.printf("connected after %.3f s%n", (System.nanoTime() - t0) / 1e9);
                long last = 0;
                long lastT = System.nanoTime();
                while (System.nanoTime() - t0 < seconds * 1e9) {
                    Thread.sleep(50);
                    long now = System.nanoTime();
                    long got = f.receivedBytes();
                    TransportStatistics s = f.senderStatistics().orElse(null);
                    System.out.printf("%6.2f %7.1f Mbit/s  total %6.1f MB  cwnd %s  rtt %s  q %s retx %s%n", (now - t0) / 1e9,
                            (got - last) * 8 / ((now - lastT) / 1e9) / 1e6, got / 1e6,
                            s == null ? "-" : s.congestionWindowBytes().orElse(-1), s == null ? "-" : s.smoothedRtt().map(Duration::toMillis).orElse(-1L),
                            s == null ? "-" : s.queuingDelay().map(Duration::toMillis).orElse(-1L), s == null ? "-" : s.retransmissions().orElse(-1));
                    last = got;
                    lastT = now;
                }
            }
        }
    }
}
