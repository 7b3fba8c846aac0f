package io.ferry.grpc;

import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2SettingsFrame;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The HTTP/2 window the builders announce, read from the SETTINGS frame a plain Netty HTTP/2 peer receives
 * over the same Ferry transport: striped URIs announce {@link FerryGrpc.STRIPED_FLOW_CONTROL_WINDOW}, single
 * connections grpc-netty's own 1 MiB.
 */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(60)
class FlowControlWindowTest {

    private static final int GRPC_DEFAULT_WINDOW = 1 << 20;

    @Test
    void aChannelOverAStripedUriAnnouncesTheLargerWindow() throws Exception {
        assertEquals(FerryGrpc.STRIPED_FLOW_CONTROL_WINDOW, windowAnnouncedByChannel("?streams=2"));
    }

    @Test
    void aChannelOverOneConnectionKeepsGrpcsWindow() throws Exception {
        assertEquals(GRPC_DEFAULT_WINDOW, windowAnnouncedByChannel(""));
    }

    @Test
    void aServerOverAStripedUriAnnouncesTheLargerWindow() throws Exception {
        assertEquals(FerryGrpc.STRIPED_FLOW_CONTROL_WINDOW, windowAnnouncedByServer("?streams=2"));
    }

    @Test
    void aServerOverOneConnectionKeepsGrpcsWindow() throws Exception {
        assertEquals(GRPC_DEFAULT_WINDOW, windowAnnouncedByServer(""));
    }

    /** A gRPC channel connects to a bare HTTP/2 server on {@code tcp://…query}; the window of its SETTINGS. */
    private static int windowAnnouncedByChannel(String query) throws Exception {
        try (Transports ferry = Transports.create()) {
            CompletableFuture<Integer> window = new CompletableFuture<>();
            Channel listener = ferry.listen("tcp://127.0.0.1:0" + query, settingsReader(true, window)).sync().channel();
            int port = ((InetSocketAddress) listener.localAddress()).getPort();
            ManagedChannel channel = FerryGrpc.channelBuilder(ferry, "tcp://127.0.0.1:" + port + query).usePlaintext().build();
            try {
                channel.getState(true); // connect now; the preface carries the settings
                return window.get(30, TimeUnit.SECONDS);
            } finally {
                channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
                listener.close().sync();
            }
        }
    }

    /** A bare HTTP/2 client connects to a gRPC server on {@code tcp://…query}; the window of its SETTINGS. */
    private static int windowAnnouncedByServer(String query) throws Exception {
        try (Transports ferry = Transports.create()) {
            Server server = FerryGrpc.serverBuilder(ferry, "tcp://127.0.0.1:0" + query)
                    .addService(FerryGrpcTest.service()).build().start();
            int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
            CompletableFuture<Integer> window = new CompletableFuture<>();
            Channel client = ferry.connect("tcp://127.0.0.1:" + port + query, settingsReader(false, window)).sync().channel();
            try {
                return window.get(30, TimeUnit.SECONDS);
            } finally {
                client.close().sync();
                server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Netty's HTTP/2 codec, and a handler that completes {@code window} from the peer's first SETTINGS. */
    private static ChannelInitializer<Channel> settingsReader(boolean server, CompletableFuture<Integer> window) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(server ? Http2FrameCodecBuilder.forServer().build() : Http2FrameCodecBuilder.forClient().build());
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        try {
                            if (msg instanceof Http2SettingsFrame) {
                                Integer initial = ((Http2SettingsFrame) msg).settings().initialWindowSize();
                                window.complete(initial == null ? 65_535 : initial); // absent: HTTP/2's default
                            }
                        } finally {
                            ReferenceCountUtil.release(msg);
                        }
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        window.completeExceptionally(cause);
                    }
                });
            }
        };
    }
}
