package io.ferry.cli.perf;

import io.ferry.cli.transfer.SharedSecret;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code ferry perf --server}: takes control connections (TCP) and serves one client at a time; another
 * client is told who is testing and since when, and turned away. Each client's tests run in a
 * {@link ServerSession} on a thread of its own; a client that vanishes mid-test leaves the server ready
 * for the next one.
 */
public final class PerfServer implements AutoCloseable {

    private final Transports ferry;
    private final Settings settings;
    private final PrintWriter log;
    /** How long a new client waits for another's session to end before it is told the server is busy. */
    private static final long LEAVING_WAIT_NANOS = 2_000_000_000L;

    private final AtomicReference<ServerSession> current = new AtomicReference<>();
    private final CompletableFuture<Void> finished = new CompletableFuture<>();
    private Channel listener;

    /**
     * What the server allows.
     *
     * @param dataPort     the first port data listeners bind (0: any); concurrent flows take the next ones
     * @param secret       the token clients must prove, or null for none
     * @param maxSeconds   the longest test it runs
     * @param once         exit after the first client
     * @param tls          TLS for the control connection, or null for plain TCP
     */
    public record Settings(int dataPort, SharedSecret secret, long maxSeconds, boolean once, io.ferry.cli.tls.ReceiverTls tls) {
    }

    public PerfServer(Transports ferry, Settings settings, PrintWriter log) {
        this.ferry = ferry;
        this.settings = settings;
        this.log = log;
    }

    /** Listens for control connections on {@code address} (TCP). */
    public InetSocketAddress start(InetSocketAddress address) throws IOException, InterruptedException {
        String host = PerfUris.hostLiteral(address.getAddress());
        io.netty.channel.ChannelFuture bound = ferry.listen("tcp://" + host + ":" + address.getPort(), new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ControlConnection control = ControlConnection.attach(ch);
                if (settings.tls() != null) {
                    settings.tls().addTo(ch.pipeline());
                }
                admit(control);
            }
        });
        bound.await();
        if (!bound.isSuccess()) {
            throw new PerfException("cannot listen on " + host + ":" + address.getPort() + ": " + bound.cause().getMessage());
        }
        listener = bound.channel();
        return (InetSocketAddress) listener.localAddress();
    }

    private void admit(ControlConnection control) {
        Thread t = new Thread(() -> serve(control), "ferry-perf-session");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Runs the client's session unless another client's is under way; that one is waited for briefly
     * first, so that a client that retries at once after a refusal (its last session still ending here)
     * is not told the server is busy with itself.
     */
    private void serve(ControlConnection control) {
        ServerSession session = new ServerSession(ferry, settings, control, log);
        long deadline = System.nanoTime() + LEAVING_WAIT_NANOS;
        while (!current.compareAndSet(null, session)) {
            ServerSession other = current.get();
            if (other != null && System.nanoTime() > deadline) {
                control.send(ControlMessage.of("BUSY", "text", other.describe() + "; try again when it is done"));
                control.close();
                return;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                control.close();
                return;
            }
        }
        try {
            session.run();
        } finally {
            current.compareAndSet(session, null);
            if (settings.once()) {
                finished.complete(null);
            }
        }
    }

    /** Blocks until {@link #close} or, with {@code once}, until the first client is done. */
    public void await() throws InterruptedException {
        try {
            finished.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close().awaitUninterruptibly();
        }
        ServerSession s = current.get();
        if (s != null) {
            s.close();
        }
        finished.complete(null);
    }
}
