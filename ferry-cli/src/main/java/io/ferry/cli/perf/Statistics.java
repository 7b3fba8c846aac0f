package io.ferry.cli.perf;

import io.ferry.transport.TransportStatistics;

import java.util.Map;

/**
 * What a test reports of its sender's transport: smoothed RTT, retransmissions and packets lost, each
 * absent where the transport does not say (-1 on the wire and null in the report).
 */
public record Statistics(Double rttMillis, Long retransmissions, Long lost) {

    static final Statistics NONE = new Statistics(null, null, null);

    static Statistics of(TransportStatistics s) {
        if (s == null) {
            return NONE;
        }
        return new Statistics(s.smoothedRtt().map(d -> d.toNanos() / 1e6).orElse(null),
                s.retransmissions().isPresent() ? s.retransmissions().getAsLong() : null,
                s.packetsLost().isPresent() ? s.packetsLost().getAsLong() : null);
    }

    static void put(Map<String, Object> fields, TransportStatistics s) {
        Statistics st = of(s);
        fields.put("rtt-us", st.rttMillis == null ? -1 : Math.round(st.rttMillis * 1000));
        fields.put("retrans", st.retransmissions == null ? -1 : st.retransmissions);
        fields.put("lost", st.lost == null ? -1 : st.lost);
    }

    static Statistics from(ControlMessage m) {
        long rtt = m.number("rtt-us", -1);
        long retrans = m.number("retrans", -1);
        long lost = m.number("lost", -1);
        return new Statistics(rtt < 0 ? null : rtt / 1000.0, retrans < 0 ? null : retrans, lost < 0 ? null : lost);
    }
}
