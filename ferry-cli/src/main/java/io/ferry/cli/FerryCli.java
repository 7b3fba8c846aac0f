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
        subcommands = {SendCommand.class, ReceiveCommand.class, PerfCommand.class, DemoCommand.class, KeygenCommand.class, CommandLine.HelpCommand.class,
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
        cli.setParameterExceptionHandler(FerryCli::usageError);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("ferry: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            return 1;
        });
        return cli;
    }

    /**
     * A usage error: its line, the nearest command or option where one was mistyped, and where the help is;
     * not the 60 lines of help, which pushed the one line that mattered off the screen. Exit 2.
     */
    static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        java.io.PrintWriter err = cmd.getErr();
        String name = cmd.getCommandSpec().qualifiedName();
        err.println(name + ": " + e.getMessage());
        if (e instanceof CommandLine.UnmatchedArgumentException) {
            for (String unmatched : ((CommandLine.UnmatchedArgumentException) e).getUnmatched()) {
                String nearest = nearest(unmatched, cmd.getParent() == null && !unmatched.startsWith("-")
                        ? cmd.getSubcommands().keySet() : cmd.getCommandSpec().optionsMap().keySet());
                if (nearest != null) {
                    err.println("Did you mean: " + (unmatched.startsWith("-") ? name + " " + nearest : "ferry " + nearest) + "?");
                    break;
                }
            }
        }
        err.println("Try '" + name + " --help' for more.");
        err.flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** The candidate closest to {@code typed} by edit distance, if it is close (at most a third of it, at least 2). */
    static String nearest(String typed, java.util.Collection<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = distance(typed, c);
            if (d < bestDistance) {
                best = c;
                bestDistance = d;
            }
        }
        return bestDistance <= Math.max(2, typed.length() / 3) ? best : null;
    }

    /** Damerau-Levenshtein distance (optimal string alignment): a swap of two letters counts once. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is needed: send, receive, perf, demo or keygen");
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
