package io.ferry.cli.perf;

import io.ferry.cli.transfer.SharedSecret;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One client's visit to a {@link PerfServer}: the greeting (and the token's proofs), then each
 * {@code TEST} the client asks for: a data listener for the test's transport, a sink or a source on the
 * one connection the client makes to it, and on {@code DONE} the figures only the server has (what
 * arrived when, its CPU, its sender's statistics). Every test is bounded by the server's own limits;
 * a client that goes silent or away ends the session and everything it opened.
 */
final class ServerSession implements AutoCloseable {

    static final int VERSION = 1;
    /** What a client's proof and the server's are bound to (see {@link SharedSecret#proofFor}). */
    static final String PURPOSE = "ferry perf " + VERSION;
    /** A client that says nothing this long more than its longest test could take is gone. */
    private static final long IDLE_MILLIS = 30_000;

    private final Transports ferry;
    private final PerfServer.Settings settings;
    private final ControlConnection control;
    private final PrintWriter log;
    private final long epochNanos = System.nanoTime();
    private final Map<Long, ServerTest> tests = new LinkedHashMap<>();
    private volatile boolean closed;
    private int testsRun;

    ServerSession(Transports ferry, PerfServer.Settings settings, ControlConnection control, PrintWriter log) {
        this.ferry = ferry;
        this.settings = settings;
        this.control = control;
        this.log = log;
    }

    String describe() {
        long s = (System.nanoTime() - epochNanos) / 1_000_000_000L;
        return "this server is testing " + PerfUris.hostLiteral(control.remote().getAddress()) + " (for " + s + " s)";
    }

    void run() {
        String peer = PerfUris.hostLiteral(control.remote().getAddress());
        String outcome = "done";
        try {
            greet();
            for (;;) {
                // a request comes at least every test's length (its DONE): a longer silence is a client gone
                ControlMessage m = control.next(settings.maxSeconds() * 1000 + IDLE_MILLIS);
                if (m.is("BYE")) {
                    break;
                } else if (m.is("TEST")) {
                    startTest(m);
                } else if (m.is("DONE")) {
                    finishTest(m.number("id"));
                } else {
                    control.send(ControlMessage.of("ERROR", "text", "unknown request " + m.verb()));
                }
            }
        } catch (PerfException e) {
            outcome = e.getMessage();
        } catch (IOException e) {
            outcome = "ended: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            outcome = "interrupted";
        } catch (RuntimeException e) {
            outcome = "ended: " + e;
            control.send(ControlMessage.of("ERROR", "text", "the server failed: " + e));
        } finally {
            close();
        }
        synchronized (log) {
            log.println("ferry perf: " + peer + ": " + testsRun + " test" + (testsRun == 1 ? "" : "s") + ", " + outcome);
            log.flush();
        }
    }

    private void greet() throws IOException, InterruptedException {
        ControlMessage hello = control.expect("HELLO", 10_000);
        if (hello.number("version", -1) != VERSION) {
            control.send(ControlMessage.of("ERROR", "text", "this server speaks ferry perf version " + VERSION + ", the client "
                    + hello.get("version", "none") + ": run the same ferry on both hosts"));
            throw new PerfException("refused a client of another version");
        }
        byte[] serverNonce = SharedSecret.freshNonce();
        control.send(ControlMessage.of("WELCOME", "version", VERSION, "auth", settings.secret() == null ? "none" : "token",
                "nonce", HexFormat.of().formatHex(serverNonce), "schemes", String.join(",", ferry.transportNames()),
                "max-seconds", settings.maxSeconds()));
        if (settings.secret() == null) {
            return;
        }
        ControlMessage prove = control.next(10_000);
        if (!prove.is("PROVE")) {
            control.send(ControlMessage.of("ERROR", "text", "this server needs a token: run ferry perf with --token-file"));
            throw new PerfException("refused a client without a token");
        }
        byte[] clientNonce = HexFormat.of().parseHex(prove.get("nonce"));
        byte[] proof = HexFormat.of().parseHex(prove.get("proof"));
        if (!settings.secret().verifiesFor(PURPOSE, "client", clientNonce, serverNonce, proof)) {
            control.send(ControlMessage.of("ERROR", "text", "the server refused the token: it is not the one in its --token-file"));
            throw new PerfException("refused a client with the wrong token");
        }
        control.send(ControlMessage.of("PROVEN", "proof",
                HexFormat.of().formatHex(settings.secret().proofFor(PURPOSE, "server", clientNonce, serverNonce))));
    }

    private void startTest(ControlMessage m) throws InterruptedException {
        long id = m.number("id");
        String spec = m.get("uri");
        boolean serverSends = m.get("sender").equals("server");
        long seconds = m.number("seconds");
        long bytes = m.number("bytes", Long.MAX_VALUE);
        if (seconds <= 0 || seconds > settings.maxSeconds()) {
            control.send(ControlMessage.of("ERROR", "text", "a test of " + seconds + " s: this server runs tests of 1 to "
                    + settings.maxSeconds() + " s (ferry perf --server --max-time)"));
            return;
        }
        if (!ferry.schemes().contains(PerfUris.scheme(spec))) {
            control.send(ControlMessage.of("ERROR", "text", PerfUris.scheme(spec) + " is not installed on the server"));
            return;
        }
        ChannelOptions.Builder options = ChannelOptions.builder();
        String cc = m.get("cc", PerfUris.cc(spec));
        if (cc != null && serverSends) {
            options.set(FerryChannelOption.CONGESTION_CONTROL, cc);
        }
        ServerTest test = new ServerTest(id, serverSends ? null : new FlowSink(seconds),
                serverSends ? new FlowSource(TimeUnit.SECONDS.toNanos(seconds), bytes, FlowPayload.memory()) : null);
        InetSocketAddress local = (InetSocketAddress) control.channel().localAddress();
        int port = settings.dataPort() == 0 ? 0 : freeDataPort();
        String uri = PerfUris.uri(spec, PerfUris.hostLiteral(local.getAddress()), port);
        ChannelFuture bound;
        try {
            bound = ferry.listen(uri, new ChannelInitializer<>() {
                @Override
                protected void initChannel(Channel ch) {
                    test.admit(ch, control.remote().getAddress());
                }
            }, options.build());
        } catch (RuntimeException e) {
            control.send(ControlMessage.of("ERROR", "text", "the server cannot run " + spec + ": " + e.getMessage()));
            return;
        }
        bound.await();
        if (!bound.isSuccess()) {
            control.send(ControlMessage.of("ERROR", "text", "the server cannot listen on " + uri + ": " + bound.cause().getMessage()));
            return;
        }
        test.listener = bound.channel();
        tests.put(id, test);
        testsRun++;
        control.send(ControlMessage.of("READY", "id", id, "port", ((InetSocketAddress) test.listener.localAddress()).getPort()));
    }

    /** The lowest data port from {@code --data-port} on that no test of this session holds. */
    private int freeDataPort() {
        java.util.Set<Integer> held = new java.util.HashSet<>();
        for (ServerTest t : tests.values()) {
            if (t.listener != null) {
                held.add(((InetSocketAddress) t.listener.localAddress()).getPort());
            }
        }
        int port = settings.dataPort();
        while (held.contains(port)) {
            port++;
        }
        return port;
    }

    private void finishTest(long id) throws InterruptedException {
        ServerTest test = tests.remove(id);
        if (test == null) {
            control.send(ControlMessage.of("ERROR", "text", "no test " + id));
            return;
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("id", id);
        fields.put("cpu", test.cpuNanos());
        if (test.sink != null) {
            long start = test.sink.startNanos();
            fields.put("start", start < 0 ? -1 : (start - epochNanos) / 1_000_000);
            fields.put("bins", ControlMessage.joined(test.sink.bins(Integer.MAX_VALUE)));
        } else {
            TransportStatistics stats = null;
            try {
                stats = test.source.stopped().get(2, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // still writing (a test the client ended early): no statistics
            }
            fields.put("written", test.source.written());
            Statistics.put(fields, stats);
        }
        test.close();
        Object[] kv = new Object[fields.size() * 2];
        int i = 0;
        for (Map.Entry<String, Object> e : fields.entrySet()) {
            kv[i++] = e.getKey();
            kv[i++] = e.getValue();
        }
        control.send(ControlMessage.of("RESULT", kv));
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        tests.values().forEach(ServerTest::close);
        tests.clear();
        control.close();
    }

    /** One test's listener, its connection and what runs on it. */
    private static final class ServerTest {
        final long id;
        final FlowSink sink;
        final FlowSource source;
        final long cpuStart = ProcessCpu.nanos();
        volatile Channel listener;
        volatile Channel connection;

        ServerTest(long id, FlowSink sink, FlowSource source) {
            this.id = id;
            this.sink = sink;
            this.source = source;
        }

        /** The test's one connection, from the client's address only; anything else is closed. */
        void admit(Channel ch, java.net.InetAddress client) {
            InetSocketAddress from = (InetSocketAddress) ch.remoteAddress();
            synchronized (this) {
                if (connection != null || from == null || !from.getAddress().equals(client)) {
                    ch.close();
                    return;
                }
                connection = ch;
            }
            ch.pipeline().addLast(sink != null ? sink : source);
        }

        long cpuNanos() {
            long now = ProcessCpu.nanos();
            return cpuStart < 0 || now < 0 ? -1 : now - cpuStart;
        }

        void close() {
            Channel c = connection;
            if (c != null) {
                FerryChannels.abort(c);
            }
            Channel l = listener;
            if (l != null) {
                l.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
        }
    }

}
