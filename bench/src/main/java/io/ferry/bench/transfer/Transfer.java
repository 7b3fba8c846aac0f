package io.ferry.bench.transfer;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Moves a generated "file" of a given size from a client peer to a server peer over one transport,
 * checked byte-exact: the receiver hashes what it got with SHA-256 and sends the digest back, the
 * sender compares it with the digest of what it sent. Every transfer has a deadline; a transfer that
 * misses it, is refused an option, loses its connection or gets a different digest is a failure
 * with the reason.
 *
 * @param scheme         the transport's URI scheme, e.g. {@code utp} ({@link #of} also takes
 *                       {@code scheme:cc}, e.g. {@code udt:udt}, for a congestion control other than the default)
 * @param clientOptions  options of the sending connection
 * @param serverOptions  options of the listener (and so of the receiving connection)
 * @param writeSize      bytes per write on the sending side
 */
public record Transfer(String scheme, ChannelOptions clientOptions, ChannelOptions serverOptions, int writeSize) {

    /** A transfer with default options and 64 KiB writes. */
    public static Transfer of(String scheme) {
        int colon = scheme.indexOf(':');
        if (colon < 0) {
            return new Transfer(scheme, ChannelOptions.empty(), ChannelOptions.empty(), 64 * 1024);
        }
        // "udt:udt": a transport with a congestion control other than its default
        ChannelOptions cc = ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, scheme.substring(colon + 1)).build();
        return new Transfer(scheme.substring(0, colon), cc, cc, 64 * 1024);
    }

    /** This transfer with these options added on both sides. */
    public Transfer withOptions(ChannelOptions options) {
        return new Transfer(scheme, clientOptions.toBuilder().setAll(options).build(),
                serverOptions.toBuilder().setAll(options).build(), writeSize);
    }

    /** Runs one transfer of {@code size} bytes and waits at most {@code timeout}. */
    public TransferResult run(Peer client, Peer server, long size, Duration timeout) {
        return runParallel(client, server, List.of(size), timeout).get(0);
    }

    /**
     * Runs one connection per entry of {@code sizes} at the same time, all to one listener, and waits
     * until all are done or {@code timeout} has passed since the first connect. Each result's time
     * runs from the common start to that connection's end.
     */
    public List<TransferResult> runParallel(Peer client, Peer server, List<Long> sizes, Duration timeout) {
        AtomicLong progress = new AtomicLong();
        AtomicReference<String> receiverFailure = new AtomicReference<>();
        Channel listener;
        try {
            listener = server.call(() -> server.transports().listen(scheme + "://" + server.host().address() + ":0",
                    new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new DigestReceiver(progress, receiverFailure));
                        }
                    }, serverOptions).sync().channel());
        } catch (Exception e) {
            return failAll(sizes, 0, "listen failed: " + describe(e));
        }
        List<Channel> channels = new ArrayList<>();
        List<CompletableFuture<Boolean>> verdicts = new ArrayList<>();
        List<TransferResult> results = new ArrayList<>();
        long start = System.nanoTime();
        try {
            int port = ((InetSocketAddress) listener.localAddress()).getPort();
            String uri = scheme + "://" + server.host().address() + ":" + port;
            for (int i = 0; i < sizes.size(); i++) {
                CompletableFuture<Boolean> verified = new CompletableFuture<>();
                verdicts.add(verified);
                long size = sizes.get(i);
                long seed = 31L * size + i;
                ChannelFuture connect = client.call(() -> client.transports().connect(uri,
                        new DigestSender(size, writeSize, seed, verified), clientOptions));
                channels.add(connect.channel());
                connect.addListener(f -> {
                    if (!f.isSuccess()) {
                        verified.completeExceptionally(f.cause());
                    }
                });
            }
            long deadline = start + timeout.toNanos();
            for (int i = 0; i < sizes.size(); i++) {
                results.add(await(verdicts.get(i), sizes.get(i), start, deadline, progress, sizes.size(), receiverFailure));
            }
        } catch (Exception e) {
            for (int i = results.size(); i < sizes.size(); i++) {
                results.add(new TransferResult(false, sizes.get(i), 0, seconds(start), "connect failed: " + describe(e)));
            }
        } finally {
            // A verified transfer's sender has nothing left unacknowledged: a graceful close. One that
            // failed or timed out is aborted, or its close would linger for data the study gave up on.
            for (int i = 0; i < channels.size(); i++) {
                Channel ch = channels.get(i);
                boolean verified = i < results.size() && results.get(i).ok();
                (verified ? ch.close() : io.ferry.transport.FerryChannels.abort(ch)).awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
            listener.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        return results;
    }

    private static TransferResult await(CompletableFuture<Boolean> verified, long size, long start, long deadline,
                                        AtomicLong progress, int parallel, AtomicReference<String> receiverFailure)
            throws InterruptedException {
        try {
            boolean same = verified.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            double s = seconds(start);
            return same ? new TransferResult(true, size, size, s, null)
                    : new TransferResult(false, size, size, s, "SHA-256 mismatch: the bytes received differ from the bytes sent");
        } catch (TimeoutException e) {
            long got = parallel == 1 ? progress.get() : 0;
            return new TransferResult(false, size, got, seconds(start), String.format(java.util.Locale.ROOT,
                    "timeout after %.0f s%s", seconds(start), parallel == 1 ? " (" + got + " of " + size + " bytes received)" : ""));
        } catch (ExecutionException e) {
            String onReceiver = receiverFailure.get();
            return new TransferResult(false, size, parallel == 1 ? progress.get() : 0, seconds(start),
                    describe(e.getCause()) + (onReceiver == null ? "" : "; " + onReceiver));
        }
    }

    private static List<TransferResult> failAll(List<Long> sizes, double seconds, String reason) {
        List<TransferResult> results = new ArrayList<>();
        for (long size : sizes) {
            results.add(new TransferResult(false, size, 0, seconds, reason));
        }
        return results;
    }

    private static double seconds(long start) {
        return (System.nanoTime() - start) / 1e9;
    }

    static String describe(Throwable e) {
        Throwable t = e;
        while ((t instanceof ExecutionException || t instanceof java.util.concurrent.CompletionException) && t.getCause() != null) {
            t = t.getCause();
        }
        String message = t.getMessage();
        return t.getClass().getSimpleName() + (message == null ? "" : ": " + message.lines().findFirst().orElse(""));
    }
}
