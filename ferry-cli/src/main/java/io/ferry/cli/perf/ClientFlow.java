package io.ferry.cli.perf;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One flow of a test, from the client's side: asks the server for it ({@code TEST}, answered by
 * {@code READY} with the data port), connects, and at the end ({@code DONE}) gathers both sides'
 * figures into a {@link Outcome}. The client sends ({@link FlowSource}) or receives ({@link FlowSink}).
 */
final class ClientFlow {

    /** What one flow measured: the receiver's bins (and when they began, in the server's clock if the server received). */
    record Outcome(long[] bins, long serverStartMillis, Statistics sender, long serverCpuNanos, String error) {
    }

    private static final long ANSWER_MILLIS = 15_000;

    private final long id;
    private final String spec;
    private final boolean clientSends;
    private final long seconds;
    private final FlowSink sink;
    private final FlowSource source;
    private final Path landing;
    private final FileChannel landingChannel;
    private Channel channel;
    private long startNanos;

    /**
     * @param file with {@code --file}: what an upload sends, and beside which a download is stored (in
     *             {@code FILE.ferry-perf-download}, removed at the end); null for memory to memory
     */
    ClientFlow(long id, String spec, boolean clientSends, long seconds, long maxBytes, Path file) throws IOException {
        this.id = id;
        this.spec = spec;
        this.clientSends = clientSends;
        this.seconds = seconds;
        this.landing = !clientSends && file != null ? file.resolveSibling(file.getFileName() + ".ferry-perf-download") : null;
        this.landingChannel = landing == null ? null : FileChannel.open(landing, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        this.sink = clientSends ? null : new FlowSink(seconds, landingChannel);
        this.source = clientSends ? new FlowSource(TimeUnit.SECONDS.toNanos(seconds), maxBytes,
                file != null ? FlowPayload.file(file) : FlowPayload.memory()) : null;
    }

    /** Asks for the flow and connects it; a refusal or a failed connect is a {@link PerfException}. */
    void open(Transports ferry, ControlConnection control, String host, String cc, long maxBytes)
            throws IOException, InterruptedException {
        control.send(ControlMessage.of("TEST", "id", id, "uri", spec, "sender", clientSends ? "client" : "server",
                "seconds", seconds, "bytes", maxBytes == Long.MAX_VALUE ? null : maxBytes, "cc", cc));
        ControlMessage ready = control.expect("READY", ANSWER_MILLIS);
        if (cc == null) {
            cc = PerfUris.cc(spec);
        }
        String uri = PerfUris.uri(spec, host, (int) ready.number("port"));
        ChannelOptions.Builder options = ChannelOptions.builder().set(FerryChannelOption.CONNECT_TIMEOUT, Duration.ofSeconds(10));
        if (cc != null && clientSends) {
            options.set(FerryChannelOption.CONGESTION_CONTROL, cc);
        }
        ChannelFuture connected;
        try {
            connected = ferry.connect(uri, clientSends ? source : sink, options.build());
        } catch (RuntimeException e) {
            closeLanding();
            done(control);
            throw new PerfException("cannot test " + spec + ": " + e.getMessage());
        }
        if (!connected.await(15, TimeUnit.SECONDS) || !connected.isSuccess()) {
            if (connected.channel().isRegistered()) {
                connected.channel().close();
            }
            closeLanding();
            done(control);
            throw new PerfException("cannot connect to " + uri + ": "
                    + (connected.cause() == null ? "no answer in 15 s" : connected.cause().getMessage()));
        }
        channel = connected.channel();
        startNanos = System.nanoTime();
    }

    /** When the connection was made ({@link System#nanoTime}). */
    long startNanos() {
        return startNanos;
    }

    /** Ends the flow: the server's figures, then the connection's abort. */
    Outcome finish(ControlConnection control) throws IOException, InterruptedException {
        ControlMessage result = done(control);
        Statistics sender;
        long[] bins;
        if (clientSends) {
            TransportStatistics stats = null;
            try {
                stats = source.stopped().get(2, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // still writing: no statistics
            }
            sender = Statistics.of(stats);
            bins = result.numbers("bins");
        } else {
            sender = Statistics.from(result);
            bins = sink.bins(Integer.MAX_VALUE);
        }
        if (channel != null) {
            FerryChannels.abort(channel).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        String error = clientSends ? source.failure() : sink.failure();
        closeLanding();
        return new Outcome(bins, clientSends ? result.number("start", -1) : -1, sender, result.number("cpu", -1), error);
    }

    private void closeLanding() {
        if (landingChannel != null) {
            try {
                landingChannel.close();
                Files.deleteIfExists(landing);
            } catch (IOException ignored) {
                // a test file the next run truncates
            }
        }
    }

    private ControlMessage done(ControlConnection control) throws IOException, InterruptedException {
        control.send(ControlMessage.of("DONE", "id", id));
        return control.expect("RESULT", ANSWER_MILLIS);
    }

    /** Aborts the connection, if any (a session that failed midway). */
    void abort() {
        if (channel != null) {
            FerryChannels.abort(channel);
        }
        closeLanding();
    }
}
