package io.ferry.examples.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code ferry} command: move files over TCP, UDT or uTP, chosen by URI scheme. */
@Command(name = "ferry",
        mixinStandardHelpOptions = true,
        versionProvider = FerryCli.Version.class,
        description = "Move files over any Ferry transport (tcp://, and udt:// or utp:// when installed), verified end to end with SHA-256.",
        subcommands = {SendCommand.class, ReceiveCommand.class, DemoCommand.class, CommandLine.HelpCommand.class},
        footer = {"", "Exit codes: 0 success, 1 transfer failed, 2 bad command line."})
public final class FerryCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line (used by {@link #main} and by tests). */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new FerryCli());
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("ferry: " + e.getMessage());
            return 1;
        });
        return cli;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is needed: send, receive or demo");
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
