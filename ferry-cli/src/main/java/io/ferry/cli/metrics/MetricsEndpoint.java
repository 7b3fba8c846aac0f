package io.ferry.cli.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Serves a Micrometer registry in the Prometheus text format: {@code GET /metrics} on one address, for
 * an operator's scraper. Everything else gets 404 (another path) or 405 (another method). The server
 * runs on one daemon thread of its own, so a slow scraper never holds up a transfer. Built on the JDK's
 * {@code com.sun.net.httpserver}: an endpoint with one path needs no web framework.
 */
public final class MetricsEndpoint implements AutoCloseable {
    /** The content type of Prometheus' text exposition format 0.0.4. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;
    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsEndpoint(PrometheusMeterRegistry registry, HttpServer server, ExecutorService executor) {
        this.registry = registry;
        this.server = server;
        this.executor = executor;
    }

    /**
     * Starts serving a new registry on {@code address} (port 0: any free port, see {@link #address()}).
     *
     * @throws IOException if the address cannot be bound (in use, not local, no permission)
     */
    public static MetricsEndpoint start(InetSocketAddress address) throws IOException {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        HttpServer server;
        try {
            server = HttpServer.create(address, 16);
        } catch (IOException e) {
            registry.close();
            throw e;
        }
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "ferry-metrics");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", exchange -> respond(exchange, registry));
        server.start();
        return new MetricsEndpoint(registry, server, executor);
    }

    private static void respond(HttpExchange exchange, PrometheusMeterRegistry registry) throws IOException {
        try {
            String method = exchange.getRequestMethod();
            if (!"/metrics".equals(exchange.getRequestURI().getPath())) {
                send(exchange, 404, "text/plain; charset=utf-8", "not found: the meters are at /metrics\n", true);
            } else if (!"GET".equals(method) && !"HEAD".equals(method)) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                send(exchange, 405, "text/plain; charset=utf-8", method + " not allowed: use GET\n", true);
            } else {
                send(exchange, 200, CONTENT_TYPE, registry.scrape(), "GET".equals(method));
            }
        } finally {
            exchange.close();
        }
    }

    private static void send(HttpExchange exchange, int status, String type, String body, boolean withBody) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, withBody ? bytes.length : -1);
        if (withBody) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** The registry whose meters this endpoint serves. */
    public MeterRegistry registry() {
        return registry;
    }

    /** The address the endpoint listens on (with the port chosen, if 0 was asked for). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    /** Stops serving (a scrape in progress is cut off) and closes the registry. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        registry.close();
    }
}
