package io.ferry.examples.grpc;

import io.ferry.grpc.FerryGrpc;
import io.grpc.BindableService;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;

/**
 * A small gRPC service without protobuf: method descriptors with a UTF-8 string {@link MethodDescriptor.Marshaller},
 * which is ordinary grpc-java and keeps protoc out of the build. {@code ferry.Echo/Echo} answers a
 * string with itself; {@code ferry.Echo/Count} streams {@code n} numbered lines back.
 */
public final class EchoService implements BindableService {

    /** Strings as UTF-8 bytes. */
    static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    static final MethodDescriptor<String, String> ECHO = MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName("ferry.Echo", "Echo"))
            .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

    static final MethodDescriptor<String, String> COUNT = MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
            .setFullMethodName(MethodDescriptor.generateFullMethodName("ferry.Echo", "Count"))
            .setRequestMarshaller(UTF8).setResponseMarshaller(UTF8).build();

    @Override
    public ServerServiceDefinition bindService() {
        return ServerServiceDefinition.builder("ferry.Echo")
                .addMethod(ECHO, ServerCalls.asyncUnaryCall((String request, StreamObserver<String> reply) -> {
                    reply.onNext(request);
                    reply.onCompleted();
                }))
                .addMethod(COUNT, ServerCalls.asyncServerStreamingCall((String request, StreamObserver<String> reply) -> {
                    int n = Integer.parseInt(request.trim());
                    for (int i = 0; i < n; i++) {
                        reply.onNext("line " + i);
                    }
                    reply.onCompleted();
                }))
                .build();
    }

    /** Calls {@code Echo} and waits for the answer. */
    public static String echo(Channel channel, String text) {
        return ClientCalls.blockingUnaryCall(channel, ECHO, io.grpc.CallOptions.DEFAULT.withDeadlineAfter(30, java.util.concurrent.TimeUnit.SECONDS), text);
    }

    /** Calls {@code Count} and returns the streamed lines as they arrive. */
    public static Iterator<String> count(Channel channel, int n) {
        return ClientCalls.blockingServerStreamingCall(channel, COUNT,
                io.grpc.CallOptions.DEFAULT.withDeadlineAfter(60, java.util.concurrent.TimeUnit.SECONDS), String.valueOf(n));
    }

    /** Runs a server and a client over a Ferry URI scheme on loopback: {@code GrpcDemo}-style main. */
    public static void main(String[] args) throws Exception {
        String scheme = args.length > 0 ? args[0] : "tcp";
        try (io.ferry.transport.Transports ferry = io.ferry.transport.Transports.create()) {
            io.grpc.Server server = FerryGrpc.serverBuilder(ferry, scheme + "://127.0.0.1:0").addService(new EchoService()).build().start();
            int port = ((java.net.InetSocketAddress) server.getListenSockets().get(0)).getPort();
            io.grpc.ManagedChannel channel = FerryGrpc.channelBuilder(ferry, scheme + "://127.0.0.1:" + port).usePlaintext().build();
            try {
                System.out.println("Echo over " + scheme + ": " + echo(channel, "hello over " + scheme));
                int lines = 0;
                for (Iterator<String> it = count(channel, 1000); it.hasNext(); it.next()) {
                    lines++;
                }
                System.out.println("Count over " + scheme + ": " + lines + " streamed messages");
            } finally {
                channel.shutdownNow().awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
                server.shutdownNow().awaitTermination(10, java.util.concurrent.TimeUnit.SECONDS);
            }
        }
    }
}
