package io.ferry.cli.transfer;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A receiver and a sender in one process on loopback: moves files over a transport and returns both
 * sides' view. Used by {@code ferry demo} and by tests.
 */
public final class LoopbackTransfer {

    /** What each side saw. */
    public record Outcome(SessionResult sent, List<FileOutcome> received) {
    }

    private LoopbackTransfer() {
    }

    /**
     * Moves the files of {@code plan} over {@code scheme} on 127.0.0.1 into {@code directory} (which must exist).
     *
     * @throws TransferFailedException if the session fails or does not end within {@code timeoutSeconds}
     */
    public static Outcome run(Transports ferry, String scheme, ChannelOptions options, SendPlan plan, Path directory,
                              SendSettings settings, ProgressListener progress, long timeoutSeconds)
            throws TransferFailedException, InterruptedException {
        List<FileOutcome> received = new ArrayList<>();
        CompletableFuture<Void> receiverDone = new CompletableFuture<>();
        ReceiverEvents events = new ReceiverEvents() {
            @Override
            public void stored(FileOutcome outcome) {
                synchronized (received) {
                    received.add(outcome);
                }
            }

            @Override
            public void failed(String message) {
            }

            @Override
            public void sessionEnded(String peer, boolean ok) {
                receiverDone.complete(null);
            }
        };
        ChannelFuture bound = ferry.listen(scheme + "://127.0.0.1:0", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                new FileReceiveSession(directory, true, events).addTo(ch.pipeline());
            }
        }, options);
        if (!bound.await(timeoutSeconds, TimeUnit.SECONDS) || !bound.isSuccess()) {
            throw new TransferFailedException("cannot listen on " + scheme + "://127.0.0.1:0: " + bound.cause(), bound.cause());
        }
        Channel server = bound.channel();
        try {
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            FileSendSession sender = new FileSendSession(plan, settings, progress);
            ChannelFuture connected = ferry.connect(scheme + "://127.0.0.1:" + port, new ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel ch) {
                    sender.addTo(ch.pipeline());
                }
            }, options);
            if (!connected.await(timeoutSeconds, TimeUnit.SECONDS) || !connected.isSuccess()) {
                throw new TransferFailedException("cannot connect over " + scheme + ": " + connected.cause(), connected.cause());
            }
            SessionResult sent = sender.result().get(timeoutSeconds, TimeUnit.SECONDS);
            if (!sent.ok()) {
                throw new TransferFailedException(sent.failure().orElseGet(() -> sent.files().stream()
                        .filter(f -> !f.ok()).findFirst().map(FileOutcome::message).orElse("failed")));
            }
            receiverDone.get(timeoutSeconds, TimeUnit.SECONDS);
            synchronized (received) {
                return new Outcome(sent, List.copyOf(received));
            }
        } catch (ExecutionException e) {
            throw new TransferFailedException("transfer failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new TransferFailedException("the transfer over " + scheme + " did not finish within " + timeoutSeconds + " s");
        } finally {
            server.close().await(timeoutSeconds, TimeUnit.SECONDS);
        }
    }
}
