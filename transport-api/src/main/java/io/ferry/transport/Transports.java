package io.ferry.transport;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;

/**
 * The entry point of Ferry: turns a transport URI into a client connection or a listening server.
 *
 * <pre>{@code
 * try (Transports ferry = Transports.create()) {
 *     Channel server = ferry.listen("tcp://0.0.0.0:9000", new MyServerInitializer()).sync().channel();
 *     Channel client = ferry.connect("tcp://127.0.0.1:9000", new MyClientInitializer()).sync().channel();
 *     // The same code runs over UDT or uTP by changing the scheme to udt:// or utp://.
 * }
 * }</pre>
 *
 * <p>Transports are discovered with {@link ServiceLoader} ({@link TransportProvider}). Each transport is
 * instantiated on first use and owns its event loops; {@link #close()} closes all of them. An
 * instance is thread-safe.
 */
public final class Transports implements AutoCloseable {

    /**
     * Where an option that selects a layer comes from, for the error when it is asked for and not
     * installed.
     */
    private static final Map<ChannelOption<?>, String> LAYER_ARTIFACTS = Map.of(FerryChannelOption.STREAMS, "io.ferry:transport-striped");

    private final Map<String, TransportProvider> providersByScheme;
    private final List<LayerProvider> layers;
    private final Map<TransportProvider, Transport> open = new LinkedHashMap<>();
    /** Each layer over each carrier it was asked for, keyed by (layer provider, carrier). */
    private final Map<List<Object>, Transport> layered = new LinkedHashMap<>();
    private boolean closed;

    private Transports(Iterable<? extends TransportProvider> providers, Iterable<? extends LayerProvider> layerProviders) {
        Map<String, TransportProvider> byScheme = new LinkedHashMap<>();
        for (TransportProvider provider : providers) {
            for (String scheme : provider.schemes()) {
                TransportProvider previous = byScheme.putIfAbsent(scheme, provider);
                if (previous != null && previous != provider) {
                    throw new IllegalStateException("two transports claim the scheme '" + scheme + "': "
                            + previous.getClass().getName() + " and " + provider.getClass().getName());
                }
            }
        }
        this.providersByScheme = Collections.unmodifiableMap(byScheme);
        List<LayerProvider> layerList = new ArrayList<>();
        layerProviders.forEach(layerList::add);
        this.layers = List.copyOf(layerList);
    }

    /** Discovers the installed transports with {@link ServiceLoader} through this class's class loader. */
    public static Transports create() {
        return create(Transports.class.getClassLoader());
    }

    /** Discovers the installed transports and layers with {@link ServiceLoader} through the given class loader. */
    public static Transports create(ClassLoader loader) {
        List<TransportProvider> providers = new ArrayList<>();
        ServiceLoader.load(TransportProvider.class, loader).forEach(providers::add);
        List<LayerProvider> layers = new ArrayList<>();
        ServiceLoader.load(LayerProvider.class, loader).forEach(layers::add);
        return new Transports(providers, layers);
    }

    /** Uses exactly these transports, without discovery and without layers. */
    public static Transports of(Iterable<? extends TransportProvider> providers) {
        return new Transports(providers, List.of());
    }

    /** Uses exactly these transports and layers, without discovery. */
    public static Transports of(Iterable<? extends TransportProvider> providers, Iterable<? extends LayerProvider> layers) {
        return new Transports(providers, layers);
    }

    /** Every installed scheme, aliases included, sorted. */
    public Set<String> schemes() {
        return Collections.unmodifiableSet(new TreeSet<>(providersByScheme.keySet()));
    }

    /** The canonical names of the installed transports, in discovery order (aliases excluded). */
    public List<String> transportNames() {
        List<String> names = new ArrayList<>();
        for (TransportProvider provider : new java.util.LinkedHashSet<>(providersByScheme.values())) {
            names.add(provider.name());
        }
        return names;
    }

    /**
     * The transport for a scheme, created on first use.
     *
     * @throws IllegalArgumentException if no installed transport has this scheme (the message lists the installed ones)
     * @throws TransportUnavailableException if the transport cannot run on this platform
     */
    public synchronized Transport transport(String scheme) {
        Objects.requireNonNull(scheme, "scheme");
        if (closed) {
            throw new IllegalStateException("this Transports instance is closed");
        }
        TransportProvider provider = providersByScheme.get(scheme.toLowerCase(java.util.Locale.ROOT));
        if (provider == null) {
            throw new IllegalArgumentException("no transport is installed for scheme '" + scheme + "'; installed: "
                    + (providersByScheme.isEmpty() ? "none (add a Ferry transport jar such as io.ferry:transport-tcp to the class path)"
                    : String.join(", ", schemes())));
        }
        return open.computeIfAbsent(provider, TransportProvider::create);
    }

    /** Connects to a transport URI with the transport's default options. */
    public ChannelFuture connect(String uri, ChannelHandler handler) {
        return connect(uri, handler, ChannelOptions.empty());
    }

    /**
     * Connects to a transport URI such as {@code tcp://host:9000}.
     *
     * @throws IllegalArgumentException for a malformed URI, an unknown scheme or an option the transport cannot honour
     */
    public ChannelFuture connect(String uri, ChannelHandler handler, ChannelOptions options) {
        return connect(TransportUri.parse(uri, false), handler, options);
    }

    /** Connects to a transport URI; see {@link #connect(String, ChannelHandler, ChannelOptions)}. */
    public ChannelFuture connect(URI uri, ChannelHandler handler, ChannelOptions options) {
        return connect(TransportUri.of(uri, false), handler, options);
    }

    private ChannelFuture connect(TransportUri target, ChannelHandler handler, ChannelOptions options) {
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(options, "options");
        options = target.withStreams(options);
        Transport transport = carrier(target.scheme(), options);
        options = withFerryDefaults(transport, options);
        InetSocketAddress remote;
        try {
            remote = resolve(target);
        } catch (UnknownHostException e) {
            // The transport fails the connect future with an UnknownHostException naming the host.
            remote = target.unresolvedAddress();
        }
        return transport.connect(remote, handler, options);
    }

    /**
     * The event loops and channel factories of the transport for {@code scheme} ({@code utp}, {@code udt},
     * {@code tcp}, ...), for engines that build Netty bootstraps themselves; see {@link Bootstrapping}.
     * With {@link FerryChannelOption#STREAMS} the channels are striped over that many of the transport's
     * connections, on the transport's own group.
     *
     * @throws UnsupportedOperationException if that transport does not serve Netty's bootstraps
     */
    public Bootstrapping bootstrapping(String scheme, ChannelOptions options) {
        Objects.requireNonNull(options, "options");
        Transport transport = carrier(scheme, options);
        return transport.bootstrapping(withFerryDefaults(transport, options));
    }

    /** {@link #bootstrapping(String, ChannelOptions)} with the transport's default options. */
    public Bootstrapping bootstrapping(String scheme) {
        return bootstrapping(scheme, ChannelOptions.empty());
    }

    /**
     * A client {@link io.netty.bootstrap.Bootstrap} for a transport URI: the transport's group and channel
     * factory set, and the URI's host and port as its remote address; add a handler and {@code connect()}.
     */
    public io.netty.bootstrap.Bootstrap bootstrap(String uri, ChannelOptions options) {
        TransportUri target = TransportUri.parse(uri, false);
        return bootstrapping(target.scheme(), target.withStreams(options)).bootstrap().remoteAddress(target.host(), target.port());
    }

    /**
     * A {@link io.netty.bootstrap.ServerBootstrap} for a transport URI: the transport's group and
     * listener factory set, and the URI's host and port as its local address; add a child handler and {@code bind()}.
     */
    public io.netty.bootstrap.ServerBootstrap serverBootstrap(String uri, ChannelOptions options) {
        TransportUri target = TransportUri.parse(uri, true);
        return bootstrapping(target.scheme(), target.withStreams(options)).serverBootstrap().localAddress(target.host(), target.port());
    }

    /** Listens on a transport URI with the transport's default options. */
    public ChannelFuture listen(String uri, ChannelHandler childHandler) {
        return listen(uri, childHandler, ChannelOptions.empty());
    }

    /**
     * Listens on a transport URI such as {@code tcp://0.0.0.0:9000} (port 0: any free port).
     *
     * @throws IllegalArgumentException for a malformed URI, an unknown scheme or an option the transport cannot honour
     */
    public ChannelFuture listen(String uri, ChannelHandler childHandler, ChannelOptions options) {
        return listen(TransportUri.parse(uri, true), childHandler, options);
    }

    /** Listens on a transport URI; see {@link #listen(String, ChannelHandler, ChannelOptions)}. */
    public ChannelFuture listen(URI uri, ChannelHandler childHandler, ChannelOptions options) {
        return listen(TransportUri.of(uri, true), childHandler, options);
    }

    private ChannelFuture listen(TransportUri target, ChannelHandler childHandler, ChannelOptions options) {
        Objects.requireNonNull(childHandler, "childHandler");
        Objects.requireNonNull(options, "options");
        options = target.withStreams(options);
        Transport transport = carrier(target.scheme(), options);
        options = withFerryDefaults(transport, options);
        InetSocketAddress local;
        try {
            local = resolve(target);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("cannot listen on '" + target + "': unknown host '" + target.host() + "'", e);
        }
        return transport.listen(local, childHandler, options);
    }

    /**
     * Ferry's defaults for Netty options where Netty's own do not fit a data pipeline: the write-buffer
     * water mark ({@link #DEFAULT_WRITE_BUFFER_WATER_MARK}) unless the options set one or the transport
     * does not take it.
     */
    static ChannelOptions withFerryDefaults(Transport transport, ChannelOptions options) {
        if (options.contains(ChannelOption.WRITE_BUFFER_WATER_MARK)
                || !transport.supportedOptions().contains(ChannelOption.WRITE_BUFFER_WATER_MARK)) {
            return options;
        }
        return options.toBuilder().set(ChannelOption.WRITE_BUFFER_WATER_MARK, DEFAULT_WRITE_BUFFER_WATER_MARK).build();
    }

    /**
     * The write-buffer water mark of every connection made through {@code Transports} (low 1 MiB, high
     * 2 MiB; Netty's is 32/64 KiB). A producer on an application thread waits for writability, and each
     * wait is a hand-off to the event loop and back: with 64 KiB it waits once per 64 KiB write and moved
     * 0.23-0.6x the event-loop writer's rate over loopback TCP; with 1-4 MiB 0.8-1.3x
     * ({@code bench/README.md}, Writers). Set {@link ChannelOption#WRITE_BUFFER_WATER_MARK} to change it.
     */
    public static final WriteBufferWaterMark DEFAULT_WRITE_BUFFER_WATER_MARK = new WriteBufferWaterMark(1 << 20, 2 << 20);

    /** The transport for a scheme, or the layer over it that the options ask for (striping: {@link FerryChannelOption#STREAMS}). */
    private Transport carrier(String scheme, ChannelOptions options) {
        Transport transport = transport(scheme);
        for (LayerProvider layer : layers) {
            if (options.contains(layer.option())) {
                synchronized (this) {
                    return layered.computeIfAbsent(List.of(layer, transport), k -> layer.createOver(transport));
                }
            }
        }
        for (Map.Entry<ChannelOption<?>, String> e : LAYER_ARTIFACTS.entrySet()) {
            if (options.contains(e.getKey())) {
                throw new IllegalArgumentException("the option '" + e.getKey().name() + "' needs " + e.getValue()
                        + " on the class path; it is not installed");
            }
        }
        return transport;
    }

    private static InetSocketAddress resolve(TransportUri target) throws UnknownHostException {
        try {
            return new InetSocketAddress(InetAddress.getByName(target.host()), target.port());
        } catch (UnknownHostException e) {
            UnknownHostException specific = new UnknownHostException("cannot resolve host '" + target.host() + "' of " + target);
            specific.initCause(e);
            throw specific;
        }
    }

    /**
     * Closes every transport this instance created, with their channels and threads. Connections still
     * open are closed gracefully and each may take up to its {@link FerryChannelOption#LINGER} to deliver
     * what was written to it; so may connections whose {@code close()} was called but has not completed.
     * Idempotent.
     *
     * @throws DataLossException if any connection had to be reset with bytes its peer had not
     *         acknowledged; it names each one and the bytes, after every transport is closed
     */
    @Override
    public void close() {
        List<Transport> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            // Layers first: a striped channel reports its members' losses as one loss of its own.
            toClose = new ArrayList<>(layered.values());
            toClose.addAll(open.values());
            open.clear();
            layered.clear();
        }
        java.util.Set<UndeliveredDataException> reported = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        RuntimeException failure = null;
        List<UndeliveredDataException> losses = new ArrayList<>();
        for (Transport transport : toClose) {
            try {
                transport.close();
            } catch (DataLossException e) {
                for (UndeliveredDataException loss : e.losses()) {
                    if (!reported.contains(loss)) {
                        losses.add(loss);
                    }
                }
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
            reported.addAll(transport.carrierLossesReported());
        }
        if (!losses.isEmpty()) {
            DataLossException lost = new DataLossException(losses);
            if (failure != null) {
                lost.addSuppressed(failure);
            }
            throw lost;
        }
        if (failure != null) {
            throw failure;
        }
    }
}
