package io.ferry.transport.ledbat.endpoint;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntSupplier;

/**
 * One UDP socket's uTP connections, keyed by (remote address, connection id) as BEP 29 routes them. Keys
 * are hashed with a secret salt, so nobody who does not know it can choose addresses and ids that pile
 * into one bucket of the table. The last route found is remembered: a bulk flow's datagrams come from one
 * peer and id in long runs, and the map's lookup (a key allocated and hashed per datagram) was an eighth of
 * a receiving endpoint's CPU samples on loopback (JFR, bench/results/2026-11-30-engine-cost). Not
 * thread-safe: one socket, one thread.
 *
 * @param <C> what the table holds for a connection
 */
final class ConnectionTable<C> {

    private final Map<Key, C> byKey = new HashMap<>();
    private final long salt;
    /** The last route {@link #get} found: its address, id and connection (null when forgotten). */
    private InetSocketAddress lastRemote;
    private int lastId;
    private C lastConnection;

    ConnectionTable(long salt) {
        this.salt = salt;
    }

    C get(InetSocketAddress remote, int connectionId) {
        int id = connectionId & 0xFFFF;
        C last = lastConnection;
        if (last != null && id == lastId && (remote == lastRemote || remote.equals(lastRemote))) {
            return last;
        }
        C found = byKey.get(new Key(remote, id, salt));
        if (found != null) {
            lastRemote = remote;
            lastId = id;
            lastConnection = found;
        }
        return found;
    }

    void put(InetSocketAddress remote, int connectionId, C connection) {
        lastConnection = null;
        byKey.put(new Key(remote, connectionId, salt), connection);
    }

    /** Removes the entry for ({@code remote}, {@code connectionId}) if it holds {@code connection}; returns whether it did. */
    boolean remove(InetSocketAddress remote, int connectionId, C connection) {
        lastConnection = null;
        return byKey.remove(new Key(remote, connectionId, salt), connection);
    }

    /** A receive id not in use towards {@code remote}, for both ids of the pair (the send id is one more). */
    int newConnectionId(InetSocketAddress remote, IntSupplier random16) {
        for (;;) {
            int id = random16.getAsInt() & 0xFFFF;
            int peer = (id + 1) & 0xFFFF;
            if (get(remote, id) == null && get(remote, peer) == null) {
                return id;
            }
        }
    }

    Collection<C> values() {
        return Collections.unmodifiableCollection(byKey.values());
    }

    int size() {
        return byKey.size();
    }

    void clear() {
        lastConnection = null;
        byKey.clear();
    }

    /** A key's hash: the remote address, port and connection id mixed with the salt. */
    static int saltedHash(InetSocketAddress remote, int connectionId, long salt) {
        long h = salt;
        h = mix(h ^ remote.getAddress().hashCode());
        h = mix(h ^ ((long) remote.getPort() << 16 | (connectionId & 0xFFFF)));
        return (int) (h ^ (h >>> 32));
    }

    /** The finaliser of SplitMix64: every input bit affects every output bit. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** (remote, connection id) with the salted hash. */
    static final class Key {
        private final InetSocketAddress remote;
        private final int connectionId;
        private final int hash;

        Key(InetSocketAddress remote, int connectionId, long salt) {
            this.remote = Objects.requireNonNull(remote, "remote");
            this.connectionId = connectionId & 0xFFFF;
            this.hash = saltedHash(remote, this.connectionId, salt);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.connectionId == connectionId && k.remote.equals(remote);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
