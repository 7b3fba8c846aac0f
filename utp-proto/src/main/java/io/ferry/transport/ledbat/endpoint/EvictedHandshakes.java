package io.ferry.transport.ledbat.endpoint;

import io.ferry.transport.ledbat.core.UtpConnection;

import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Half-open connections evicted under a SYN flood, remembered in a few dozen bytes each (the SYN and the
 * sequence number this side answered with), newest kept: an initiator whose confirmation was lost in the
 * flood is revived by its next packet, which must acknowledge that answer, instead of being reset. A
 * SYN cache in the sense of RFC 4987 section 3.2, holding only what eviction let go. Keys are salted like
 * the {@link ConnectionTable}'s. One thread.
 */
final class EvictedHandshakes {

    /** What a revived connection is made from: the initiator's SYN and this side's first sequence number. */
    record Handshake(byte[] syn, int seqNr) {
    }

    private final Map<ConnectionTable.Key, Handshake> remembered;
    private final long salt;

    EvictedHandshakes(int capacity, long salt) {
        this.salt = salt;
        this.remembered = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<ConnectionTable.Key, Handshake> eldest) {
                return size() > capacity;
            }
        };
    }

    void remember(InetSocketAddress remote, int recvId, Handshake handshake) {
        remembered.put(new ConnectionTable.Key(remote, recvId, salt), handshake);
    }

    /**
     * The handshake evicted for ({@code remote}, {@code recvId}) if a packet acknowledging {@code ackNr}
     * confirms it; it is forgotten either way, so a guess is worth one try. Null if there is none or
     * the acknowledgement is not of its answer (a blind forgery from a flooding address).
     */
    Handshake take(InetSocketAddress remote, int recvId, int ackNr) {
        Handshake h = remembered.remove(new ConnectionTable.Key(remote, recvId, salt));
        return h != null && UtpConnection.confirmsHandshake(ackNr, h.seqNr()) ? h : null;
    }

    int size() {
        return remembered.size();
    }

    void clear() {
        remembered.clear();
    }
}
