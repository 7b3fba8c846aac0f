package io.ferry.transport.ledbat.endpoint;

import io.ferry.transport.ledbat.core.SynAnswer;

import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Handshakes a listener answered without keeping a connection, in a few dozen bytes each (the SYN and
 * the sequence number of this side's answer), newest kept: SYNs answered while the half-open places were
 * full, and half-open connections evicted to make room. A packet that acknowledges the answer makes (or
 * revives) the connection; anything else finds nothing. The SYN cache of RFC 4987 and FreeBSD's
 * {@code syncache(4)}, except that the initiator's repeated SYN, not this side, repeats a lost answer.
 * Keys are salted like the {@link ConnectionTable}'s. One thread.
 */
final class SynCache {

    /** What a connection is made from: the initiator's SYN and this side's first sequence number. */
    record Entry(byte[] syn, int seqNr) {

        /** The SYN's own sequence number (a repeated SYN carries the same). */
        int synSeqNr() {
            return ((syn[16] & 0xFF) << 8) | (syn[17] & 0xFF);
        }
    }

    private final Map<ConnectionTable.Key, Entry> remembered;
    private final long salt;

    SynCache(int capacity, long salt) {
        this.salt = salt;
        this.remembered = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<ConnectionTable.Key, SynCache.Entry> eldest) {
                return size() > capacity;
            }
        };
    }

    void remember(InetSocketAddress remote, int recvId, Entry entry) {
        remembered.put(new ConnectionTable.Key(remote, recvId, salt), entry);
    }

    /** The entry for ({@code remote}, {@code recvId}), left in place; null if none. */
    Entry peek(InetSocketAddress remote, int recvId) {
        return remembered.get(new ConnectionTable.Key(remote, recvId, salt));
    }

    /**
     * The entry for ({@code remote}, {@code recvId}) if a packet acknowledging {@code ackNr} confirms it;
     * it is forgotten either way, so a guess is worth one try. Null if there is none or the
     * acknowledgement is not of its answer (a blind forgery from a flooding address).
     */
    Entry take(InetSocketAddress remote, int recvId, int ackNr) {
        Entry e = remembered.remove(new ConnectionTable.Key(remote, recvId, salt));
        return e != null && SynAnswer.confirms(ackNr, e.seqNr()) ? e : null;
    }

    int size() {
        return remembered.size();
    }

    void clear() {
        remembered.clear();
    }
}
