package io.ferry.examples.pipeline;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;

import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * A two-stage streaming pipeline over any Ferry transport: a producer ships numbered, length-prefixed
 * records to a consumer that processes them more slowly than they can be made, and backpressure keeps
 * every buffer on the way bounded.
 *
 * <pre>
 * java -cp examples/target/examples.jar io.ferry.examples.pipeline.RecordPipeline consume tcp://127.0.0.1:9200
 * java -cp examples/target/examples.jar io.ferry.examples.pipeline.RecordPipeline produce tcp://127.0.0.1:9200 [RECORDS] [SIZE]
 * java -cp examples/target/examples.jar io.ferry.examples.pipeline.RecordPipeline demo [SCHEME] [RECORDS] [SIZE]
 * </pre>
 */
public final class RecordPipeline {

    /** What both stages saw; {@code checksum}s are CRC32C over every payload in order. */
    public record Result(RecordProducer.Stats produced, long producedChecksum, RecordConsumer.Stats consumed, long consumedChecksum,
                         long outOfOrder) {
        /** Every record arrived, in order, unchanged. */
        public boolean intact() {
            return produced.records() == consumed.records() && producedChecksum == consumedChecksum && outOfOrder == 0;
        }
    }

    private RecordPipeline() {
    }

    /** Records of {@code size} bytes (at least 8): an 8-byte sequence number, then seeded random bytes. */
    static final class NumberedRecords implements RecordProducer.Source {
        private final long count;
        private final int size;
        private final SplittableRandom random = new SplittableRandom(7);
        private final CRC32C checksum = new CRC32C();
        private long next;

        NumberedRecords(long count, int size) {
            this.count = count;
            this.size = Math.max(8, size);
        }

        @Override
        public ByteBuf next(io.netty.buffer.ByteBufAllocator alloc) {
            if (next == count) {
                return null;
            }
            byte[] body = new byte[size - 8];
            random.nextBytes(body);
            ByteBuf record = alloc.buffer(size).writeLong(next++).writeBytes(body);
            checksum.update(record.nioBuffer());
            return record;
        }
    }

    /** Checks order and sums what arrives; optionally slow, standing in for real work. */
    static final class CheckingSink implements RecordConsumer.Sink {
        final CRC32C checksum = new CRC32C();
        final long pauseEveryRecords;
        long expected;
        long outOfOrder;

        CheckingSink(long pauseEveryRecords) {
            this.pauseEveryRecords = pauseEveryRecords;
        }

        @Override
        public void accept(ByteBuf record) throws InterruptedException {
            if (record.getLong(record.readerIndex()) != expected) {
                outOfOrder++;
            }
            expected++;
            checksum.update(record.nioBuffer());
            if (pauseEveryRecords > 0 && expected % pauseEveryRecords == 0) {
                Thread.sleep(1);
            }
        }
    }

    /**
     * The producer's connection holds at most 64 KiB (Netty's default) it has not handed to the transport (Ferry's default
     * water mark, 1 MiB low / 2 MiB high, is sized for throughput): a pipeline that bounds its memory per connection says so.
     */
    static final ChannelOptions PRODUCER_OPTIONS = ChannelOptions.builder()
            .set(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32 * 1024, 64 * 1024)).build();

    /**
     * Runs both stages in this process over {@code scheme} on loopback.
     *
     * @param slowEvery the consumer sleeps 1 ms every this many records (0: full speed)
     */
    public static Result run(Transports ferry, String scheme, long records, int size, int queueLimit, long slowEvery) throws Exception {
        ExecutorService worker = Executors.newSingleThreadExecutor(r -> new Thread(r, "pipeline-consumer"));
        try {
            CheckingSink sink = new CheckingSink(slowEvery);
            java.util.concurrent.CompletableFuture<RecordConsumer> accepted = new java.util.concurrent.CompletableFuture<>();
            Channel server = ferry.listen(scheme + "://127.0.0.1:0", new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    RecordConsumer consumer = new RecordConsumer(sink, worker, queueLimit);
                    consumer.addTo(ch.pipeline());
                    accepted.complete(consumer);
                }
            }).sync().channel();
            try {
                NumberedRecords source = new NumberedRecords(records, size);
                RecordProducer producer = new RecordProducer(source);
                int port = ((InetSocketAddress) server.localAddress()).getPort();
                ferry.connect(scheme + "://127.0.0.1:" + port, producer, PRODUCER_OPTIONS).sync();
                RecordProducer.Stats produced = producer.done().get(120, TimeUnit.SECONDS);
                RecordConsumer.Stats consumed = accepted.get(10, TimeUnit.SECONDS).done().get(120, TimeUnit.SECONDS);
                worker.submit(() -> { }).get(); // the sink's fields are read after its last record
                return new Result(produced, source.checksum.getValue(), consumed, sink.checksum.getValue(), sink.outOfOrder);
            } finally {
                server.close().sync();
            }
        } finally {
            worker.shutdownNow();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: RecordPipeline demo [SCHEME] [RECORDS] [SIZE] | consume URI | produce URI [RECORDS] [SIZE]");
            System.exit(2);
        }
        try (Transports ferry = Transports.create()) {
            switch (args[0]) {
                case "demo": {
                    String scheme = args.length > 1 ? args[1] : "tcp";
                    long records = args.length > 2 ? Long.parseLong(args[2]) : 100_000;
                    int size = args.length > 3 ? Integer.parseInt(args[3]) : 1024;
                    long start = System.nanoTime();
                    Result r = run(ferry, scheme, records, size, 256, 100);
                    double seconds = (System.nanoTime() - start) / 1e9;
                    System.out.printf(Locale.ROOT, "%s: %d records (%d bytes) in %.1f s, intact: %s; producer paused %d times "
                                    + "(at most %d bytes queued), consumer paused reading %d times (at most %d records queued)%n",
                            scheme, r.consumed().records(), r.consumed().bytes(), seconds, r.intact(), r.produced().pauses(),
                            r.produced().maxPendingBytes(), r.consumed().pauses(), r.consumed().maxQueued());
                    System.exit(r.intact() ? 0 : 1);
                    break;
                }
                case "consume": {
                    ExecutorService worker = Executors.newSingleThreadExecutor();
                    CheckingSink sink = new CheckingSink(100);
                    Channel server = ferry.listen(args[1], new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            RecordConsumer consumer = new RecordConsumer(sink, worker, 256);
                            consumer.addTo(ch.pipeline());
                            consumer.done().whenComplete((stats, failure) -> System.out.println(
                                    failure == null ? "consumed " + stats + ", checksum " + Long.toHexString(sink.checksum.getValue())
                                            : "consumer failed: " + failure.getMessage()));
                        }
                    }).sync().channel();
                    System.out.println("consuming on " + server.localAddress() + " (Ctrl-C to stop)");
                    server.closeFuture().sync();
                    break;
                }
                case "produce": {
                    long records = args.length > 2 ? Long.parseLong(args[2]) : 100_000;
                    int size = args.length > 3 ? Integer.parseInt(args[3]) : 1024;
                    NumberedRecords source = new NumberedRecords(records, size);
                    RecordProducer producer = new RecordProducer(source);
                    ferry.connect(args[1], producer, PRODUCER_OPTIONS).sync();
                    RecordProducer.Stats stats = producer.done().get();
                    System.out.println("produced " + stats + ", checksum " + Long.toHexString(source.checksum.getValue()));
                    break;
                }
                default:
                    System.err.println("unknown mode " + args[0]);
                    System.exit(2);
            }
        }
    }
}
