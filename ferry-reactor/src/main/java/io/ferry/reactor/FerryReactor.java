package io.ferry.reactor;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.TransportUri;
import io.ferry.transport.Transports;
import reactor.netty.resources.LoopResources;

/**
 * Reactor Netty over any Ferry transport: the {@link LoopResources} to give {@code HttpServer},
 * {@code HttpClient}, {@code TcpServer} or {@code TcpClient} with {@code runOn(...)}, so that they (and Spring
 * WebFlux, Spring Cloud Gateway and RSocket, which run on them) carry their connections over the transport a
 * scheme names:
 *
 * <pre>{@code
 * LoopResources utp = FerryReactor.loops(ferry, "utp");
 * DisposableServer server = HttpServer.create().runOn(utp).host("0.0.0.0").port(8080).handle(...).bindNow();
 * HttpClient client = HttpClient.create().runOn(utp);
 * }</pre>
 *
 * Reactor Netty builds its channels through the loop resources ({@code onChannel}); these hand it the
 * transport's own event loops and channel factories ({@link Transports#bootstrapping}), so nothing is copied
 * between channels and no adapter sits in between. The loops belong to the {@link Transports}: disposing
 * the resources leaves them running, and {@link Transports#close()} ends them.
 */
public final class FerryReactor {

    private FerryReactor() {
    }

    /**
     * Loop resources over the transport {@code scheme} names, with its default options. A scheme may carry
     * {@code ?streams=N} ({@code "utp?streams=4"}): every connection is then striped over N of the
     * transport's, on both ends.
     *
     * @throws IllegalArgumentException for an unknown scheme or a malformed query
     */
    public static LoopResources loops(Transports ferry, String scheme) {
        return loops(ferry, scheme, ChannelOptions.empty());
    }

    /**
     * Loop resources over the transport {@code scheme} names, every connection with {@code options} (congestion
     * control, buffers, linger, ...), validated as {@link Transports#connect} validates them.
     *
     * @throws IllegalArgumentException for an unknown scheme, a malformed query, or an option the transport
     *                                  cannot honour
     */
    public static LoopResources loops(Transports ferry, String scheme, ChannelOptions options) {
        int q = scheme.indexOf('?');
        String name = q < 0 ? scheme : scheme.substring(0, q);
        ChannelOptions all = options;
        if (q >= 0) {
            // the URI parser checks the query as it checks any transport URI's
            all = TransportUri.parse(name + "://127.0.0.1:0" + scheme.substring(q), true).withStreams(options);
        }
        Bootstrapping parts = ferry.bootstrapping(name, all);
        return new FerryLoopResources(scheme, parts);
    }
}
