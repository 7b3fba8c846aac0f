package io.ferry.cli.perf;

import java.net.Inet6Address;
import java.net.InetAddress;

/** How {@code ferry perf} writes hosts and transport specs into URIs. */
final class PerfUris {

    private PerfUris() {
    }

    /** An address as a URI host: IPv6 in brackets. */
    static String hostLiteral(InetAddress address) {
        String a = address.getHostAddress();
        int zone = a.indexOf('%');
        if (address instanceof Inet6Address) {
            return "[" + (zone >= 0 ? a.substring(0, zone) : a) + "]";
        }
        return a;
    }

    /** A host name or literal as a URI host (a bare IPv6 literal gets brackets). */
    static String host(String host) {
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    /**
     * {@code scheme://host:port[?streams=N]} for a spec {@code scheme[?streams=N][&cc=NAME]} (or
     * {@code scheme?cc=NAME}): the congestion control is perf's own part of a spec, set as the connection's
     * option ({@link #cc}), for a transport URI takes no such query.
     */
    static String uri(String spec, String host, int port) {
        spec = withoutCc(spec);
        int q = spec.indexOf('?');
        String scheme = q < 0 ? spec : spec.substring(0, q);
        String query = q < 0 ? "" : spec.substring(q);
        return scheme + "://" + host + ":" + port + query;
    }

    /** The congestion control a spec names ({@code cc=NAME} in its query), or null. */
    static String cc(String spec) {
        int q = spec.indexOf('?');
        if (q < 0) {
            return null;
        }
        for (String part : spec.substring(q + 1).split("&")) {
            if (part.startsWith("cc=")) {
                return part.substring(3);
            }
        }
        return null;
    }

    /** A spec without its {@code cc=NAME}. */
    static String withoutCc(String spec) {
        int q = spec.indexOf('?');
        if (q < 0) {
            return spec;
        }
        StringBuilder kept = new StringBuilder();
        for (String part : spec.substring(q + 1).split("&")) {
            if (!part.startsWith("cc=")) {
                kept.append(kept.length() == 0 ? "" : "&").append(part);
            }
        }
        return spec.substring(0, q) + (kept.length() == 0 ? "" : "?" + kept);
    }

    /** The scheme of a spec {@code scheme[?query]}. */
    static String scheme(String spec) {
        int q = spec.indexOf('?');
        return q < 0 ? spec : spec.substring(0, q);
    }
}
