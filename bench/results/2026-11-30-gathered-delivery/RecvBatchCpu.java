import io.ferry.transport.ledbat.core.UtpConfig;
import io.ferry.transport.ledbat.core.UtpConnection;
import io.ferry.transport.ledbat.wire.PacketType;
import io.ferry.transport.ledbat.wire.PacketWriter;
import io.ferry.transport.ledbat.wire.UtpWire;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.lang.management.ManagementFactory;

/**
 * Thread CPU nanoseconds per received packet for a uTP receiver core fed as transport-ledbat's endpoint
 * feeds it under UDP_GRO: read batches of 44 DATA packets of 1,400 bytes, each packet a retained slice of
 * one 64 KiB buffer (as Netty splits a GRO read), collected after every call, every delivered buffer read
 * (summed) and released, consumption reported once per batch. Only public API: the same file runs against
 * any build's benchmarks.jar. Thread CPU time, so a loaded machine moves it little.
 *   java -cp bench/target/benchmarks.jar RecvBatchCpu.java [ROUNDS]
 */
public class RecvBatchCpu {
    static final int PER_BATCH = 44;
    static final int PAYLOAD = 1400;

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        UtpConfig config = UtpConfig.builder().build();
        ByteBuf syn = alloc.directBuffer(64);
        PacketWriter.writeHeader(syn, PacketType.SYN, UtpWire.EXTENSION_NONE, 1000, 1, 0, 1 << 20, 500, 0);
        long now = 1_000_000_000L;
        UtpConnection c = UtpConnection.accept(config, syn, 7, now);
        syn.release();
        long[] sink = new long[2];
        drain(c, sink);
        int[] seq = {501};
        var bean = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 60_000; i++) {
            now = batch(c, alloc, seq, now, sink);
        }
        StringBuilder out = new StringBuilder("receiver core, ns-cpu per packet:");
        for (int r = 0; r < rounds; r++) {
            long c0 = bean.getCurrentThreadCpuTime();
            int n = 40_000;
            for (int i = 0; i < n; i++) {
                now = batch(c, alloc, seq, now, sink);
            }
            out.append(String.format(" %.0f", (bean.getCurrentThreadCpuTime() - c0) / (double) (n * PER_BATCH)));
        }
        System.out.println(out + "  (deliveries per batch " + String.format("%.1f", sink[1] / (double) ((60_000 + rounds * 40_000L)))
                + ", " + (sink[0] & 1) + ")");
    }

    static long batch(UtpConnection c, ByteBufAllocator alloc, int[] seq, long now, long[] sink) {
        ByteBuf gro = alloc.directBuffer(65536, 65536);
        for (int k = 0; k < PER_BATCH; k++) {
            PacketWriter.writeHeader(gro, PacketType.DATA, UtpWire.EXTENSION_NONE, 1001, (int) (now / 1000), 0, 1 << 20,
                    seq[0] & UtpWire.SEQ_MASK, 6);
            seq[0]++;
            gro.writerIndex(gro.writerIndex() + PAYLOAD);
        }
        c.beginReadBatch();
        int at = 0;
        long delivered = 0;
        for (int k = 0; k < PER_BATCH; k++) {
            int size = UtpWire.HEADER_SIZE + PAYLOAD;
            ByteBuf d = gro.retainedSlice(at, size);
            at += size;
            c.onPacket(d, now);
            d.release();
            delivered += drain(c, sink);
            now += 2_000;
        }
        gro.release();
        c.endReadBatch(now);
        delivered += drain(c, sink);
        c.consumed((int) delivered, now);
        drain(c, sink);
        return now;
    }

    static long drain(UtpConnection c, long[] sink) {
        for (ByteBuf p; (p = c.pollTransmit()) != null; ) {
            p.release();
        }
        c.pollEvents();
        long n = 0;
        for (ByteBuf d; (d = c.pollData()) != null; ) {
            n += d.readableBytes();
            sink[0] += d.getByte(d.readerIndex());
            sink[1]++;
            d.release();
        }
        return n;
    }
}
