package io.ferry.cli;

import io.ferry.transport.tls.SelfSignedCertificates;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code ferry keygen --out DIR}: a self-signed certificate and key for a sender (or a receiver). */
@Command(name = "keygen", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Make a self-signed certificate (EC P-256) and its private key as PEM files, and print the certificate's "
                + "SHA-256 fingerprint.",
                "A sender presents it with ferry send --cert NAME.pem --key NAME.key; a receiver lets it in with "
                        + "ferry receive --allow FINGERPRINT. A receiver can use a pair too (ferry receive --tls --cert --key)."},
        footer = {"", "Example:",
                "  ferry keygen --out ~/.ferry --name laptop     (writes ~/.ferry/laptop.pem and ~/.ferry/laptop.key)"})
final class KeygenCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Directory to write the two files into (created if missing).")
    Path out;

    @Option(names = "--name", paramLabel = "NAME", defaultValue = "ferry",
            description = "File name stem and certificate common name (default: ${DEFAULT-VALUE}): NAME.pem and NAME.key.")
    String name;

    @Option(names = "--days", paramLabel = "N", defaultValue = "365", description = "Validity in days, 1 to 3650 (default: ${DEFAULT-VALUE}).")
    int days;

    @Override
    public Integer call() {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--name must be 1 to 64 letters, digits, '.', '_' or '-' (starting with a letter or digit), got '" + name + "'");
        }
        if (days < 1 || days > 3650) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--days must be from 1 to 3650, got " + days);
        }
        Path certificate = out.resolve(name + ".pem");
        Path key = out.resolve(name + ".key");
        for (Path p : new Path[] {certificate, key}) {
            if (Files.exists(p)) {
                err.println("ferry keygen: " + p + " exists; choose another --name or --out (nothing was written)");
                return 1;
            }
        }
        try {
            Files.createDirectories(out);
            SelfSignedCertificates.Generated pair = SelfSignedCertificates.generate("localhost", name, days);
            pair.writePem(certificate, key);
            stdout.printf(Locale.ROOT, "certificate %s%nkey %s (keep it secret)%nfingerprint %s%n", certificate, key, pair.fingerprint());
            stdout.printf(Locale.ROOT, "sender:   ferry send --cert %s --key %s ...%nreceiver: ferry receive --allow %s ...%n",
                    certificate, key, pair.fingerprint());
            stdout.flush();
            return 0;
        } catch (FileAlreadyExistsException e) {
            err.println("ferry keygen: " + e.getFile() + " exists; choose another --name or --out");
            return 1;
        } catch (IOException | GeneralSecurityException e) {
            err.println("ferry keygen: " + e.getMessage());
            return 1;
        }
    }
}
