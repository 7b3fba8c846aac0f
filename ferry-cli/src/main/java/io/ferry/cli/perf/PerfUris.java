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

    /** {@code scheme://host:port?query} for a spec {@code scheme[?query]}. */
    static String uri(String spec, String host, int port) {
        int q = spec.indexOf('?');
        String scheme = q < 0 ? spec : spec.substring(0, q);
        String query = q < 0 ? "" : spec.substring(q);
        return scheme + "://" + host + ":" + port + query;
    }

    /** The scheme of a spec {@code scheme[?query]}. */
    static String scheme(String spec) {
        int q = spec.indexOf('?');
        return q < 0 ? spec : spec.substring(0, q);
    }
}
