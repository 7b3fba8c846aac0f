package io.ferry.examples.cli;

import io.ferry.examples.progress.Sizes;
import io.ferry.examples.progress.TerminalProgress;
import io.ferry.examples.transfer.FileSender;
import io.ferry.examples.transfer.TransferFailedException;
import io.ferry.examples.transfer.TransferResult;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;

/** {@code ferry send FILE URI}. */
@Command(name = "send", description = "Send a file to a ferry receiver and wait until it is stored and verified.",
        mixinStandardHelpOptions = true)
final class SendCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The file to send.")
    Path file;

    @Parameters(index = "1", paramLabel = "URI", description = "The receiver, e.g. tcp://host:9000.")
    String uri;

    @Option(names = "--name", paramLabel = "NAME", description = "Store the file under this name (default: its own name).")
    String name;

    @Option(names = "--chunk-size", paramLabel = "SIZE", defaultValue = "256K",
            description = "Bytes read and written at a time (default: ${DEFAULT-VALUE}).")
    String chunkSize;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int chunk = chunkSize();
        if (!Files.exists(file)) {
            err.println("ferry send: " + file + ": no such file");
            return 1;
        }
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            err.println("ferry send: " + file + ": not a readable regular file");
            return 1;
        }
        String storedName = name != null ? name : file.getFileName().toString();
        FileSender sender = new FileSender(file, storedName, TerminalProgress.forConsole(), chunk);
        try (Transports ferry = Transports.create()) {
            ChannelFuture connected;
            try {
                connected = ferry.connect(uri, new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(sender);
                    }
                });
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
            }
            connected.await();
            if (!connected.isSuccess()) {
                err.println("ferry send: cannot connect to " + uri + ": " + connected.cause().getMessage());
                return 1;
            }
            try {
                TransferResult result = sender.result().get();
                out.printf(Locale.ROOT, "sent %s (%s) to %s in %s at %s, sha256 %s verified by the receiver%n",
                        result.name(), Sizes.bytes(result.bytes()), uri, Sizes.seconds(result.elapsed().toNanos() / 1e9),
                        Sizes.rate(result.bytesPerSecond()), result.sha256Hex());
                return 0;
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                err.println("ferry send: " + (cause instanceof TransferFailedException ? cause.getMessage() : cause.toString()));
                return 1;
            }
        }
    }

    private int chunkSize() {
        long size;
        try {
            size = Sizes.parse(chunkSize);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--chunk-size: " + e.getMessage());
        }
        if (size < 1024 || size > (16 << 20)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--chunk-size must be between 1K and 16M, got " + chunkSize);
        }
        return (int) size;
    }
}
