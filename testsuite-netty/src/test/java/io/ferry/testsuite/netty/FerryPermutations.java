package io.ferry.testsuite.netty;

import io.ferry.transport.Bootstrapping;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.Transports;
import io.ferry.transport.hosted.HostedChannels;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.testsuite.transport.TestsuitePermutation;
import io.netty.util.NetUtil;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Ferry's permutations for Netty's socket test suite: each transport's own bootstraps
 * ({@link Transports#bootstrapping}), as Netty's {@code SocketTestPermutation} gives epoll's.
 */
final class FerryPermutations {

    /**
     * The transports every class of the suite runs over unless it says otherwise: uTP, UDT, QUIC and striped
     * channels over one and over four TCP connections ({@code tcp?streams=N}, as in a Ferry URI), and uTP
     * hosted on loops that are not the transport's ({@code hosted:utp}). {@code -Dferry.suite.schemes=a,b}
     * runs others (e.g. {@code hosted:udt,hosted:tcp?streams=4}).
     */
    static final List<String> SCHEMES = List.of(System.getProperty("ferry.suite.schemes",
            "utp,udt,quic,tcp?streams=1,tcp?streams=4,hosted:utp").split(","));

    /**
     * Why {@code SocketHalfClosedTest.testAutoCloseFalseDoesShutdownOutput} does not apply to a user-space
     * transport: it blocks one end's event loop for the whole exchange and expects the kernel to carry the
     * protocol meanwhile (send that end's first write, take the peer's reset, fail the next write at once).
     */
    static final String LOOP_BLOCKED = "blocks an end's event loop for the whole exchange and expects the kernel to send, "
            + "receive the peer's reset and fail the next write meanwhile; a user-space transport's protocol runs on that loop";

    /** Why a test whose peer is Netty's NIO TCP listener does not apply. */
    static final String TCP_PEER = "its peer is a TCP listener (Netty's NIO ServerSocketChannel), which a UDP-based transport cannot reach";

    /**
     * Servers and clients on groups of their own, as Netty's permutations give each end its own event loop:
     * some tests block one end's loop while the other end acts, and a uTP connection lives on its UDP
     * socket's loop, which one shared group could give both ends.
     */
    private static final Transports SERVERS = Transports.create();
    private static final Transports CLIENTS = Transports.create();

    /** The prefix of a scheme whose channels are hosted on loops not the transport's. */
    static final String HOSTED = "hosted:";
    private static final EventLoopGroup SERVER_HOSTS = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private static final EventLoopGroup CLIENT_HOSTS = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());

    /**
     * Where the suite's servers bind: IPv4 loopback, not Netty's default {@code NetUtil.LOCALHOST} (::1 on
     * this machine), the one address every transport's listener is tested on.
     */
    static SocketAddress loopback() {
        return new InetSocketAddress(NetUtil.LOCALHOST4, 0);
    }

    /**
     * The scheme of the combination the running test last made bootstraps for (tests run one at a time):
     * what {@link NamesTheScheme} adds to a failure, since Netty's test names do not say.
     */
    static volatile String current = "(none yet)"; // NamesTheScheme resets it before each test

    /** One combination per scheme in {@link #SCHEMES}. */
    static List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> all() {
        List<TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap>> combos = new ArrayList<>();
        for (String scheme : SCHEMES) {
            combos.add(of(scheme));
        }
        return combos;
    }

    /** A server and a client bootstrap over {@code scheme}, on groups of their own. */
    static TestsuitePermutation.BootstrapComboFactory<ServerBootstrap, Bootstrap> of(String scheme) {
        Bootstrapping servers = bootstrapping(SERVERS, SERVER_HOSTS, scheme);
        Bootstrapping clients = bootstrapping(CLIENTS, CLIENT_HOSTS, scheme);
        return new TestsuitePermutation.BootstrapComboFactory<>() {
            @Override
            public ServerBootstrap newServerInstance() {
                current = scheme;
                return servers.serverBootstrap();
            }

            @Override
            public Bootstrap newClientInstance() {
                current = scheme;
                return clients.bootstrap();
            }

            @Override
            public String toString() {
                return scheme;
            }
        };
    }

    /** One client bootstrap per scheme in {@link #SCHEMES}, for the suite's client-only classes. */
    static List<TestsuitePermutation.BootstrapFactory<Bootstrap>> clients() {
        return clients(SCHEMES.toArray(new String[0]));
    }

    /** One client bootstrap per scheme given. */
    static List<TestsuitePermutation.BootstrapFactory<Bootstrap>> clients(String... schemes) {
        List<TestsuitePermutation.BootstrapFactory<Bootstrap>> factories = new ArrayList<>();
        for (String scheme : schemes) {
            Bootstrapping clients = bootstrapping(CLIENTS, CLIENT_HOSTS, scheme);
            factories.add(() -> {
                current = scheme;
                return clients.bootstrap();
            });
        }
        return factories;
    }

    /**
     * A transport's bootstrapping for one of {@link #SCHEMES}: a scheme, and {@code ?streams=N} for striped
     * channels; {@code hosted:} before it puts the channels on {@code hosts}, plain NIO loops that are not the
     * transport's ({@link HostedChannels}), as an engine with loops of its own (Vert.x) does.
     */
    private static Bootstrapping bootstrapping(Transports transports, EventLoopGroup hosts, String spec) {
        if (spec.startsWith(HOSTED)) {
            Bootstrapping carrier = bootstrapping(transports, hosts, spec.substring(HOSTED.length()));
            return new Bootstrapping(hosts, HostedChannels.clients(carrier), HostedChannels.listeners(carrier));
        }
        int query = spec.indexOf("?streams=");
        if (query < 0) {
            return transports.bootstrapping(spec);
        }
        int streams = Integer.parseInt(spec.substring(query + "?streams=".length()));
        return transports.bootstrapping(spec.substring(0, query),
                ChannelOptions.builder().set(FerryChannelOption.STREAMS, streams).build());
    }

    private FerryPermutations() {
    }
}
