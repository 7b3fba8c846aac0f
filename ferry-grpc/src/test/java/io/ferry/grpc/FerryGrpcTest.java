package io.ferry.grpc;

import io.ferry.transport.Transports;
import io.ferry.transport.conformance.LeakDetectionExtension;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A gRPC server and channel built by {@link FerryGrpc} talk over every installed transport. */
@ExtendWith(LeakDetectionExtension.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FerryGrpcTest {

    /** Raw bytes, so that no protobuf is needed. */
    static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
    static final MethodDescriptor<byte[], byte[]> REVERSE = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("ferry.Test/Reverse")
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    static final MethodDescriptor<byte[], byte[]> TOTAL = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.CLIENT_STREAMING).setFullMethodName("ferry.Test/Total")
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();

    static ServerServiceDefinition service() {
        return ServerServiceDefinition.builder("ferry.Test")
                .addMethod(REVERSE, ServerCalls.asyncUnaryCall((byte[] request, StreamObserver<byte[]> reply) -> {
                    byte[] out = new byte[request.length];
                    for (int i = 0; i < request.length; i++) {
                        out[i] = request[request.length - 1 - i];
                    }
                    reply.onNext(out);
                    reply.onCompleted();
                }))
                .addMethod(TOTAL, ServerCalls.asyncClientStreamingCall(reply -> new StreamObserver<byte[]>() {
                    long total;

                    @Override
                    public void onNext(byte[] chunk) {
                        total += chunk.length;
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                        reply.onNext(Long.toString(total).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                        reply.onCompleted();
                    }
                }))
                .build();
    }

    /** Every installed transport, and channels striped over four TCP and two uTP connections. */
    static Stream<String> schemes() {
        try (Transports ferry = Transports.create()) {
            return Stream.concat(ferry.transportNames().stream().toList().stream(), Stream.of("tcp?streams=4", "utp?streams=2"));
        }
    }

    /** A loopback URI for {@code spec} ({@code scheme} or {@code scheme?query}) and {@code port}. */
    static String uri(String spec, int port) {
        int q = spec.indexOf('?');
        return q < 0 ? spec + "://127.0.0.1:" + port : spec.substring(0, q) + "://127.0.0.1:" + port + spec.substring(q);
    }

    @ParameterizedTest
    @MethodSource("schemes")
    void unaryAndClientStreamingCallsWorkOverTheTransport(String scheme) throws Exception {
        try (Transports ferry = Transports.create()) {
            Server server = FerryGrpc.serverBuilder(ferry, uri(scheme, 0)).addService(service()).build().start();
            int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
            ManagedChannel channel = FerryGrpc.channelBuilder(ferry, uri(scheme, port)).usePlaintext().build();
            try {
                byte[] big = new byte[3 << 20]; // larger than HTTP/2's initial windows: flow control at work
                new java.util.Random(5).nextBytes(big);
                byte[] reversed = ClientCalls.blockingUnaryCall(channel, REVERSE, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), big);
                for (int i = 0; i < big.length; i++) {
                    if (reversed[i] != big[big.length - 1 - i]) {
                        throw new AssertionError("byte " + i + " differs");
                    }
                }
                CompletableFuture<byte[]> total = new CompletableFuture<>();
                StreamObserver<byte[]> upload = ClientCalls.asyncClientStreamingCall(
                        channel.newCall(TOTAL, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS)), new StreamObserver<>() {
                            @Override
                            public void onNext(byte[] value) {
                                total.complete(value);
                            }

                            @Override
                            public void onError(Throwable t) {
                                total.completeExceptionally(t);
                            }

                            @Override
                            public void onCompleted() {
                            }
                        });
                byte[] chunk = new byte[64 * 1024];
                for (int i = 0; i < 200; i++) {
                    upload.onNext(chunk);
                }
                upload.onCompleted();
                assertEquals(Long.toString(200L * chunk.length), new String(total.get(60, TimeUnit.SECONDS), java.nio.charset.StandardCharsets.US_ASCII));
                if (!scheme.startsWith("tcp")) {
                    // the server listens on the transport's UDP port, not on TCP: the calls went over the transport
                    assertThrows(IOException.class, () -> new Socket("127.0.0.1", port).close());
                }
            } finally {
                channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
                server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * A server's graceful shutdown after its client left is as quick over striped connections as over one:
     * the striped channel closes at the peer's end of stream itself, not through grpc-netty's handler
     * (which would send a GOAWAY and a PING to the gone peer and wait out its 10 s for the answer).
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"tcp", "tcp?streams=4", "utp?streams=4"})
    void aServerShutsDownPromptlyOnceItsBidiStreamingClientLeft(String scheme) throws Exception {
        MethodDescriptor<byte[], byte[]> echo = MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(MethodDescriptor.MethodType.BIDI_STREAMING).setFullMethodName("ferry.Echo/Each")
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
        ServerServiceDefinition echoService = ServerServiceDefinition.builder("ferry.Echo")
                .addMethod(echo, ServerCalls.asyncBidiStreamingCall(reply -> new StreamObserver<byte[]>() {
                    @Override
                    public void onNext(byte[] value) {
                        reply.onNext(value);
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                        reply.onCompleted();
                    }
                })).build();
        try (Transports ferry = Transports.create()) {
            Server server = FerryGrpc.serverBuilder(ferry, uri(scheme, 0)).addService(echoService).build().start();
            int port = ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
            ManagedChannel channel = FerryGrpc.channelBuilder(ferry, uri(scheme, port)).usePlaintext().build();
            try {
                CompletableFuture<Integer> echoed = new CompletableFuture<>();
                int[] count = {0};
                StreamObserver<byte[]> out = ClientCalls.asyncBidiStreamingCall(
                        channel.newCall(echo, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS)), new StreamObserver<>() {
                            @Override
                            public void onNext(byte[] value) {
                                count[0]++;
                            }

                            @Override
                            public void onError(Throwable t) {
                                echoed.completeExceptionally(t);
                            }

                            @Override
                            public void onCompleted() {
                                echoed.complete(count[0]);
                            }
                        });
                for (int i = 0; i < 50; i++) {
                    out.onNext(new byte[16 * 1024]);
                }
                out.onCompleted();
                assertEquals(50, echoed.get(60, TimeUnit.SECONDS));
                channel.shutdown();
                org.junit.jupiter.api.Assertions.assertTrue(channel.awaitTermination(10, TimeUnit.SECONDS), "the client left");
                long start = System.nanoTime();
                server.shutdown();
                boolean down = server.awaitTermination(8, TimeUnit.SECONDS);
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                // grpc-netty's own wait for a GOAWAY's PING is 10 s: a server that waits it out has not closed itself
                org.junit.jupiter.api.Assertions.assertTrue(down, "the server shut down without waiting for its gone client (" + millis + " ms)");
            } finally {
                channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
                server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            }
        }
    }
}
