package io.ferry.transport.hosted;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An accepted connection's carried channel reads before its host channel has a loop; what it reports then
 * must reach the host in order with what it reports while the host registers (a CI run of Netty's
 * {@code SocketObjectEchoTest} over {@code hosted:utp} once saw a server's first objects out of order).
 */
class HostedEarlyReportsTest {

    @Test
    void reportsMadeWhileTheHostRegistersRunInTheOrderTheyWereMade() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            HostedSocketChannel host = new HostedSocketChannel(null, new NioSocketChannel());
            List<Integer> seen = new ArrayList<>(); // the host's loop only
            int before = 20_000;
            int total = 200_000;
            for (int n = 0; n < before; n++) {
                int m = n;
                host.post(() -> seen.add(m));
            }
            Thread carriedLoop = new Thread(() -> {
                for (int n = before; n < total; n++) {
                    int m = n;
                    host.post(() -> seen.add(m));
                }
            });
            carriedLoop.start();
            group.register(host).sync();
            carriedLoop.join();
            host.eventLoop().submit(() -> { }).get(30, TimeUnit.SECONDS);
            List<Integer> result = host.eventLoop().submit(() -> new ArrayList<>(seen)).get(30, TimeUnit.SECONDS);
            assertEquals(total, result.size());
            for (int n = 0; n < total; n++) {
                if (result.get(n) != n) {
                    assertEquals(n, result.get(n), "report " + n + " ran out of order");
                }
            }
            host.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
