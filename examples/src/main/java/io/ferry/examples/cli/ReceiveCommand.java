package io.ferry.examples.cli;

import io.ferry.examples.progress.Sizes;
import io.ferry.examples.transfer.FileReceiver;
import io.ferry.examples.transfer.ProgressListener;
import io.ferry.examples.transfer.TransferResult;
import io.ferry.transport.TransportUri;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/** {@code ferry receive --listen URI --dir DIR}. */
@Command(name = "receive", description = "Receive files into a directory until stopped (Ctrl-C).",
        mixinStandardHelpOptions = true)
final class ReceiveCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--listen", required = true, paramLabel = "URI",
            description = "Where to listen, e.g. tcp://0.0.0.0:9000 (port 0: any free port, printed at start).")
    String listen;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "Directory to store received files in (created if missing).")
    Path dir;

    @Option(names = "--overwrite", description = "Replace files that already exist (default: refuse them).")
    boolean overwrite;

    @Option(names = "--once", description = "Exit after the first transfer: 0 if it was stored and verified, 1 otherwise.")
    boolean once;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            TransportUri.parse(listen, true);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--listen: " + e.getMessage(), e);
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            err.println("ferry receive: cannot use " + dir + " as the receiving directory: " + e.getMessage());
            return 1;
        }
        if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
            err.println("ferry receive: " + dir + " is not a writable directory");
            return 1;
        }
        CompletableFuture<Integer> firstOutcome = new CompletableFuture<>();
        FileReceiver.Events events = FileReceiver.events(result -> {
            out.printf(Locale.ROOT, "received %s (%s) in %s at %s, sha256 %s verified, stored as %s%n", result.name(),
                    Sizes.bytes(result.bytes()), Sizes.seconds(result.elapsed().toNanos() / 1e9), Sizes.rate(result.bytesPerSecond()),
                    result.sha256Hex(), result.storedAt().map(Path::toString).orElse("?"));
            out.flush();
            firstOutcome.complete(0);
        }, message -> {
            err.println("ferry receive: " + message);
            err.flush();
            firstOutcome.complete(1);
        });
        Transports ferry = Transports.create();
        Runtime.getRuntime().addShutdownHook(new Thread(ferry::close, "ferry-receive-shutdown"));
        try {
            ChannelFuture bound;
            try {
                bound = ferry.listen(listen, new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new FileReceiver(dir, overwrite, ProgressListener.NONE, events));
                    }
                });
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--listen: " + e.getMessage(), e);
            }
            bound.await();
            if (!bound.isSuccess()) {
                err.println("ferry receive: cannot listen on " + listen + ": " + bound.cause().getMessage());
                return 1;
            }
            InetSocketAddress local = (InetSocketAddress) bound.channel().localAddress();
            TransportUri asked = TransportUri.parse(listen, true);
            String host = local.getAddress() instanceof java.net.Inet6Address
                    ? "[" + local.getAddress().getHostAddress() + "]" : local.getAddress().getHostAddress();
            out.printf(Locale.ROOT, "receiving into %s on %s://%s:%d%n", dir.toAbsolutePath(), asked.scheme(), host, local.getPort());
            out.flush();
            if (once) {
                return firstOutcome.get();
            }
            bound.channel().closeFuture().await();
            return 0;
        } finally {
            ferry.close();
        }
    }
}
