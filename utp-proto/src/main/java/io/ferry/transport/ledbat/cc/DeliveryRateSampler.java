package io.ferry.transport.ledbat.cc;

/**
 * Delivery-rate samples as draft-cheng-iccrg-delivery-rate-estimation describes them: each packet
 * remembers, when it is sent, how much had been delivered and when; its acknowledgement then gives
 * {@code rate = (delivered now - delivered at its send) / max(send interval, ack interval)}, the larger
 * interval guarding against bursts of acknowledgements.
 *
 * <p>The controller does not learn which packet an acknowledgement covers, so packets of new data are
 * kept in send order and an acknowledgement is taken to cover those whose data, counted in send
 * order, lies within the bytes delivered so far. With a hole the sample then belongs to an older packet
 * than the one acknowledged, which lengthens the interval and lowers the rate a little; it never
 * raises it. Retransmissions are not remembered: their delivery is counted when it comes.
 */
final class DeliveryRateSampler {
    private long[] endOffset = new long[64];
    private long[] deliveredAtSend = new long[64];
    private long[] deliveredTimeAtSend = new long[64];
    private long[] firstSentTimeAtSend = new long[64];
    private long[] sentTime = new long[64];
    private boolean[] appLimitedAtSend = new boolean[64];
    private int head;
    private int size;

    private long sentBytes;
    private long delivered;
    private long deliveredTime;
    private long firstSentTime;
    private long appLimitedUntil;
    private boolean started;

    private long priorDelivered;
    private long intervalNanos;
    private boolean sampleAppLimited;

    /** A packet left; {@code flightBefore} 0 restarts the intervals (the connection was idle). */
    void onSent(int payload, boolean retransmission, long flightBefore, long nowNanos) {
        if (flightBefore == 0 || !started) {
            started = true;
            firstSentTime = nowNanos;
            deliveredTime = nowNanos;
        }
        if (payload <= 0 || retransmission) {
            return;
        }
        sentBytes += payload;
        if (size == endOffset.length) {
            grow();
        }
        int i = (head + size) % endOffset.length;
        endOffset[i] = sentBytes;
        deliveredAtSend[i] = delivered;
        deliveredTimeAtSend[i] = deliveredTime;
        firstSentTimeAtSend[i] = firstSentTime;
        sentTime[i] = nowNanos;
        appLimitedAtSend[i] = appLimitedUntil != 0;
        size++;
    }

    /**
     * The sender is application-limited: packets sent until everything now in flight is delivered
     * give samples that may be below the path's rate.
     */
    void markAppLimited(long bytesInFlight) {
        appLimitedUntil = Math.max(1, delivered + bytesInFlight);
    }

    /**
     * Counts newly delivered bytes and takes a sample from the newest packet they cover.
     *
     * @return whether a sample was taken ({@link #rateBytesPerSecond} and the others then describe it)
     */
    boolean onAck(long bytesNewlyAcked, long nowNanos) {
        delivered += bytesNewlyAcked;
        deliveredTime = nowNanos;
        if (appLimitedUntil != 0 && delivered > appLimitedUntil) {
            appLimitedUntil = 0;
        }
        int newest = -1;
        while (size > 0 && endOffset[head] <= delivered) {
            newest = head;
            head = (head + 1) % endOffset.length;
            size--;
        }
        if (newest < 0) {
            return false;
        }
        priorDelivered = deliveredAtSend[newest];
        sampleAppLimited = appLimitedAtSend[newest];
        firstSentTime = sentTime[newest];
        long sendElapsed = sentTime[newest] - firstSentTimeAtSend[newest];
        long ackElapsed = nowNanos - deliveredTimeAtSend[newest];
        intervalNanos = Math.max(sendElapsed, ackElapsed);
        return true;
    }

    /** Total bytes delivered. */
    long delivered() {
        return delivered;
    }

    /** Bytes delivered when the sample's packet was sent (BBR's round counting uses it). */
    long priorDelivered() {
        return priorDelivered;
    }

    /** The sample's interval in nanoseconds. */
    long intervalNanos() {
        return intervalNanos;
    }

    /** The sample's rate in bytes per second (0 for an empty interval). */
    double rateBytesPerSecond() {
        return intervalNanos <= 0 ? 0 : (delivered - priorDelivered) * 1e9 / intervalNanos;
    }

    /** Whether the sample's packet was sent while the sender was application-limited. */
    boolean isAppLimited() {
        return sampleAppLimited;
    }

    private void grow() {
        int n = endOffset.length;
        endOffset = unwrap(endOffset, n * 2);
        deliveredAtSend = unwrap(deliveredAtSend, n * 2);
        deliveredTimeAtSend = unwrap(deliveredTimeAtSend, n * 2);
        firstSentTimeAtSend = unwrap(firstSentTimeAtSend, n * 2);
        sentTime = unwrap(sentTime, n * 2);
        boolean[] flags = new boolean[n * 2];
        for (int k = 0; k < size; k++) {
            flags[k] = appLimitedAtSend[(head + k) % n];
        }
        appLimitedAtSend = flags;
        head = 0;
    }

    private long[] unwrap(long[] a, int capacity) {
        long[] b = new long[capacity];
        for (int k = 0; k < size; k++) {
            b[k] = a[(head + k) % a.length];
        }
        return b;
    }
}
