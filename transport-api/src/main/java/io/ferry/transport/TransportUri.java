package io.ferry.transport;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Objects;

/**
 * A parsed and checked transport address such as {@code tcp://example.org:9000} or
 * {@code utp://[::1]:6881}: a scheme, a host and a port, and optionally {@code ?streams=N} for a
 * striped connection (see {@link FerryChannelOption#STREAMS}).
 *
 * <p>Every problem is reported as an {@link IllegalArgumentException} whose message quotes the
 * input and names what is wrong (no scheme, no host, no port, a port out of range, a path or query
 * that has no meaning here).
 */
public final class TransportUri {

    private final String scheme;
    private final String host;
    private final int port;
    private final String text;
    private final int streams;

    private TransportUri(String scheme, String host, int port, String text, int streams) {
        this.scheme = scheme;
        this.host = host;
        this.port = port;
        this.text = text;
        this.streams = streams;
    }

    /**
     * Parses a transport address.
     *
     * @param text      the address, for example {@code tcp://127.0.0.1:9000}
     * @param forListen whether the address is for a listener, where port 0 (any free port) is allowed
     */
    public static TransportUri parse(String text, boolean forListen) {
        Objects.requireNonNull(text, "uri");
        String trimmed = text.trim();
        if (trimmed.isEmpty()) {
            throw new IllegalArgumentException("empty transport URI; expected scheme://host:port, e.g. tcp://127.0.0.1:9000");
        }
        URI uri;
        try {
            uri = new URI(trimmed);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("malformed transport URI '" + text + "': " + e.getReason()
                    + "; expected scheme://host:port, e.g. tcp://127.0.0.1:9000", e);
        }
        return of(uri, forListen);
    }

    /** Checks an already-parsed {@link URI}; see {@link #parse(String, boolean)}. */
    public static TransportUri of(URI uri, boolean forListen) {
        String text = uri.toString();
        if (uri.getScheme() == null) {
            throw new IllegalArgumentException("transport URI '" + text + "' has no scheme; expected scheme://host:port, e.g. tcp://127.0.0.1:9000");
        }
        if (uri.isOpaque()) {
            throw new IllegalArgumentException("transport URI '" + text + "' must have the form scheme://host:port (missing '//')");
        }
        if (uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException("transport URI '" + text + "' must not contain user information");
        }
        String host = uri.getHost();
        if (host == null) {
            throw new IllegalArgumentException("transport URI '" + text + "' has no valid host"
                    + (uri.getRawAuthority() != null ? " (cannot read '" + uri.getRawAuthority() + "' as host:port)" : ""));
        }
        if (uri.getPort() == -1) {
            throw new IllegalArgumentException("transport URI '" + text + "' has no port; add one, e.g. " + uri.getScheme() + "://" + host + ":9000");
        }
        int port = uri.getPort();
        if (port > 65_535 || (port == 0 && !forListen)) {
            throw new IllegalArgumentException("transport URI '" + text + "' has port " + port
                    + (forListen ? "; ports go from 0 (any free port) to 65535" : "; a connection needs a port from 1 to 65535"));
        }
        String path = uri.getRawPath();
        if ((path != null && !path.isEmpty() && !path.equals("/")) || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("transport URI '" + text + "' must not have a path or fragment; pass options as ChannelOptions");
        }
        int streams = streams(uri.getRawQuery(), text);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new TransportUri(uri.getScheme().toLowerCase(Locale.ROOT), host, port, text, streams);
    }

    /** The one query a transport URI may have, {@code streams=N} (see {@link FerryChannelOption#STREAMS}); 0 without it. */
    private static int streams(String query, String text) {
        if (query == null) {
            return 0;
        }
        if (!query.startsWith("streams=") || query.indexOf('&') >= 0) {
            throw new IllegalArgumentException("transport URI '" + text + "' has the query '" + query
                    + "'; the only query a transport URI takes is streams=N (1 to 64); pass other options as ChannelOptions");
        }
        String value = query.substring("streams=".length());
        int n;
        try {
            n = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("transport URI '" + text + "': streams must be a number from 1 to 64, got '" + value + "'");
        }
        if (n < 1 || n > 64) {
            throw new IllegalArgumentException("transport URI '" + text + "': streams must be from 1 to 64, got " + n);
        }
        return n;
    }

    /** The number of striped streams the URI asks for ({@code ?streams=N}), if it asks. */
    public java.util.OptionalInt streams() {
        return streams == 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(streams);
    }

    /**
     * {@code options} with the URI's {@code streams} as {@link FerryChannelOption#STREAMS}.
     *
     * @throws IllegalArgumentException if the options already ask for a different number
     */
    public ChannelOptions withStreams(ChannelOptions options) {
        if (streams == 0) {
            return options;
        }
        java.util.Optional<Integer> given = options.get(FerryChannelOption.STREAMS);
        if (given.isPresent() && given.get() != streams) {
            throw new IllegalArgumentException("transport URI '" + text + "' asks for " + streams
                    + " streams but the options ask for STREAMS=" + given.get());
        }
        return options.toBuilder().set(FerryChannelOption.STREAMS, streams).build();
    }

    /** The scheme in lower case, e.g. {@code tcp}. */
    public String scheme() {
        return scheme;
    }

    /** The host name or address literal (IPv6 without brackets). */
    public String host() {
        return host;
    }

    /** The port; 0 only for a listener that takes any free port. */
    public int port() {
        return port;
    }

    /** An unresolved socket address for this host and port. */
    public InetSocketAddress unresolvedAddress() {
        return InetSocketAddress.createUnresolved(host, port);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TransportUri)) {
            return false;
        }
        TransportUri other = (TransportUri) o;
        return scheme.equals(other.scheme) && host.equals(other.host) && port == other.port && streams == other.streams;
    }

    @Override
    public int hashCode() {
        return Objects.hash(scheme, host, port, streams);
    }

    @Override
    public String toString() {
        return text;
    }
}
