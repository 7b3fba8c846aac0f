package io.ferry.transport.striped;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.FerryChannels;
import io.ferry.transport.conformance.FullBacklogPeer;
import io.ferry.transport.conformance.ImpairedPath;
import io.ferry.transport.conformance.SlowTcpRelay;
import io.ferry.transport.conformance.TransportConformanceTest;
import io.ferry.transport.conformance.UnresponsivePeer;

import java.net.InetSocketAddress;

/**
 * The conformance suite over striped TCP channels: every test's connections and listeners carry
 * {@link FerryChannelOption#STREAMS}, so the application's one channel runs over {@link #streams()}
 * TCP connections (on epoll where it loads, as users get it).
 */
abstract class StripedTcpConformance extends TransportConformanceTest {

    /** How many member connections each channel has. */
    protected abstract int streams();

    @Override
    protected String scheme() {
        return "tcp";
    }

    @Override
    protected ChannelOptions baseOptions() {
        return ChannelOptions.builder().set(FerryChannelOption.STREAMS, streams()).build();
    }

    @Override
    protected UnresponsivePeer openUnresponsivePeer() throws Exception {
        return new FullBacklogPeer();
    }

    @Override
    protected ImpairedPath openImpairedPath(InetSocketAddress server) throws Exception {
        return new SlowTcpRelay(server, 2_000_000);
    }

    @org.junit.jupiter.api.Test
    void everyChannelIsStripedOverTheAskedNumberOfConnections() throws Exception {
        java.util.concurrent.CompletableFuture<io.netty.channel.Channel> accepted = new java.util.concurrent.CompletableFuture<>();
        io.netty.channel.Channel server = listen(ch -> accepted.complete(ch));
        io.netty.channel.Channel client = connect(server, ch -> { });
        try {
            StripedChannel striped = org.junit.jupiter.api.Assertions.assertInstanceOf(StripedChannel.class, client);
            org.junit.jupiter.api.Assertions.assertEquals(streams(), striped.members().size(), "client members");
            StripedChannel child = org.junit.jupiter.api.Assertions.assertInstanceOf(StripedChannel.class,
                    accepted.get(20, java.util.concurrent.TimeUnit.SECONDS));
            org.junit.jupiter.api.Assertions.assertEquals(streams(), child.members().size(), "accepted members");
            org.junit.jupiter.api.Assertions.assertEquals(streams(), striped.memberStatistics().size());
            org.junit.jupiter.api.Assertions.assertTrue(FerryChannels.statistics(client).implementation().endsWith("striped x" + streams()),
                    FerryChannels.statistics(client).implementation());
        } finally {
            client.close().await(20, java.util.concurrent.TimeUnit.SECONDS);
            server.close().await(20, java.util.concurrent.TimeUnit.SECONDS);
        }
    }
}
