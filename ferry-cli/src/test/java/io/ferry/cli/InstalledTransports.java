package io.ferry.cli;

import io.ferry.transport.Transports;

import java.util.List;
import java.util.stream.Stream;

/** The transports on the test class path, found with ServiceLoader: tests iterate over every one. */
public final class InstalledTransports {

    private InstalledTransports() {
    }

    /** Canonical names of every installed transport (tcp, utp, udt, quic). */
    public static List<String> names() {
        try (Transports ferry = Transports.create()) {
            return ferry.transportNames();
        }
    }

    /** For {@code @MethodSource("io.ferry.cli.InstalledTransports#schemes")}. */
    public static Stream<String> schemes() {
        return names().stream();
    }
}
