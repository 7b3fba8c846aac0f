package io.ferry.examples.transfer;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A receiver and a sender in one process on loopback: moves one file over a transport and returns both
 * sides' results. Used by {@code ferry demo} and by tests.
 */
public final class LoopbackTransfer {

    /** What each side saw. */
    public record Outcome(TransferResult sent, TransferResult received) {
    }

    private LoopbackTransfer() {
    }

    /**
     * Moves {@code file} over {@code scheme} on 127.0.0.1 into {@code directory}.
     *
     * @throws TransferFailedException if either side reports a failure or nothing happens within {@code timeoutSeconds}
     */
    public static Outcome run(Transports ferry, String scheme, ChannelOptions options, Path file, Path directory,
                              ProgressListener progress, long timeoutSeconds) throws TransferFailedException, InterruptedException {
        CompletableFuture<TransferResult> received = new CompletableFuture<>();
        FileReceiver.Events events = FileReceiver.events(received::complete,
                message -> received.completeExceptionally(new TransferFailedException(message)));
        ChannelFuture bound = ferry.listen(scheme + "://127.0.0.1:0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new FileReceiver(directory, true, ProgressListener.NONE, events));
            }
        }, options);
        if (!bound.await(timeoutSeconds, TimeUnit.SECONDS) || !bound.isSuccess()) {
            throw new TransferFailedException("cannot listen on " + scheme + "://127.0.0.1:0: " + bound.cause(), bound.cause());
        }
        Channel server = bound.channel();
        try {
            int port = ((java.net.InetSocketAddress) server.localAddress()).getPort();
            FileSender sender = new FileSender(file, file.getFileName().toString(), progress, 256 * 1024);
            ChannelFuture connected = ferry.connect(scheme + "://127.0.0.1:" + port, new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    ch.pipeline().addLast(sender);
                }
            }, options);
            if (!connected.await(timeoutSeconds, TimeUnit.SECONDS) || !connected.isSuccess()) {
                throw new TransferFailedException("cannot connect over " + scheme + ": " + connected.cause(), connected.cause());
            }
            TransferResult sent = await(sender.result(), timeoutSeconds, "sending");
            return new Outcome(sent, await(received, timeoutSeconds, "receiving"));
        } finally {
            server.close().await(timeoutSeconds, TimeUnit.SECONDS);
        }
    }

    private static TransferResult await(CompletableFuture<TransferResult> future, long timeoutSeconds, String what)
            throws TransferFailedException, InterruptedException {
        try {
            return future.get(timeoutSeconds, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TransferFailedException) {
                throw (TransferFailedException) e.getCause();
            }
            throw new TransferFailedException(what + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new TransferFailedException(what + " did not finish within " + timeoutSeconds + " s");
        }
    }
}
