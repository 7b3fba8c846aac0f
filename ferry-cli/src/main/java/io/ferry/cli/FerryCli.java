package io.ferry.cli;

import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code ferry} command: move files over TCP, uTP, UDT or QUIC, chosen by URI scheme. */
@Command(name = "ferry",
        mixinStandardHelpOptions = true,
        versionProvider = FerryCli.Version.class,
        description = {"Move files and directories over any Ferry transport, chosen by URI scheme (tcp://, utp:// alias ledbat://, "
                + "udt://, quic:// when installed), verified end to end (CRC-32C, or SHA-256 with --checksum sha256), resumable, optionally over TLS.",
                "Start with: ferry demo"},
        subcommands = {SendCommand.class, ReceiveCommand.class, DemoCommand.class, KeygenCommand.class, CommandLine.HelpCommand.class,
                AutoComplete.GenerateCompletion.class},
        footer = {"", "Exit codes: 0 success, 1 transfer failed, 2 bad command line.",
                "Shell completion: source <(ferry generate-completion)"})
public final class FerryCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        prepareJvm();
        System.exit(commandLine().execute(args));
    }

    /**
     * The system properties every ferry command runs with, set before any Netty class loads; a user's own
     * setting of each wins. For {@link #main} and for a program that runs {@link #commandLine()} itself.
     */
    public static void prepareJvm() {
        // With java.base/java.nio open to it (the jar's manifest says Add-Opens), Netty allocates direct memory
        // without ByteBuffer.allocateDirect, which zeroes every new block: on a receiver taking in 1 GiB that
        // zeroing and its page faults were 0.1 s of CPU per GiB. Set before any Netty class is loaded; a user's
        // own -Dio.netty.tryReflectionSetAccessible wins.
        if (System.getProperty("io.netty.tryReflectionSetAccessible") == null) {
            System.setProperty("io.netty.tryReflectionSetAccessible", "true");
        }
        // Netty's allocator defines JFR events for its chunks and buffers; the first allocation then builds their
        // metadata (annotation proxies, event handlers): 50-60 ms of a send's start and as much again between its
        // connect and its first byte (docs/cli-speed.md). A user's -Dio.netty.jfr.enabled=true brings them back.
        if (System.getProperty("io.netty.jfr.enabled") == null) {
            System.setProperty("io.netty.jfr.enabled", "false");
        }
    }

    /** The configured command line (used by {@link #main} and by tests). */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new FerryCli());
        // picocli hides its completion command by default; ferry lists it.
        cli.getSubcommands().get("generate-completion").getCommandSpec().usageMessage().hidden(false);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("ferry: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            return 1;
        });
        return cli;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is needed: send, receive, demo or keygen");
    }

    /** Reports the version recorded in the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = FerryCli.class.getPackage().getImplementationVersion();
            return new String[]{"ferry " + (v == null ? "(development build)" : v)};
        }
    }
}
