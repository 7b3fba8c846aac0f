package io.ferry.bench.scenario;

import io.ferry.transport.Transports;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The transports a study covers: Ferry's planned ones ({@code tcp}, {@code utp}, {@code udt}, {@code quic}) plus
 * whatever else is installed. A planned transport whose jar is not on the class path is reported as
 * "transport not installed" instead of being measured; adding the jar adds its rows.
 */
public final class TransportCatalog {

    /** The transports Ferry plans to ship. */
    public static final List<String> PLANNED = List.of("tcp", "utp", "udt", "quic");

    private final Set<String> installed;

    private TransportCatalog(Set<String> installed) {
        this.installed = installed;
    }

    /** Discovers the installed transports with {@link java.util.ServiceLoader}. */
    public static TransportCatalog discover() {
        try (Transports t = Transports.create()) {
            return new TransportCatalog(new LinkedHashSet<>(t.transportNames()));
        }
    }

    /** Planned and installed transports, planned ones first. */
    public List<String> all() {
        Set<String> all = new LinkedHashSet<>(PLANNED);
        all.addAll(installed);
        return new ArrayList<>(all);
    }

    /** Whether a transport is installed ({@code scheme:cc} names the transport {@code scheme}). */
    public boolean installed(String name) {
        int colon = name.indexOf(':');
        return installed.contains(colon < 0 ? name : name.substring(0, colon));
    }

    /** The installed transports. */
    public List<String> installedNames() {
        return new ArrayList<>(installed);
    }
}
