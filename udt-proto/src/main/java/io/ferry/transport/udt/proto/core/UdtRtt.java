package io.ferry.transport.udt.proto.core;

/**
 * UDT4's round-trip estimate, in microseconds (draft-gg-udt-03 §6.2): a sample moves the smoothed RTT by
 * 1/8 and its variance by 1/4. Samples come from ACK2s (this side's ACK answered) and from the RTT field of
 * the peer's full ACKs. Starts at UDT4's guess of 100 ms, variance 50 ms.
 */
final class UdtRtt {
    private int micros = 100_000;
    private int varianceMicros = 50_000;

    void sample(long sampleMicros) {
        varianceMicros = (int) Math.min(Integer.MAX_VALUE, (varianceMicros * 3L + Math.abs(sampleMicros - micros)) >> 2);
        micros = (int) Math.min(Integer.MAX_VALUE, (micros * 7L + sampleMicros) >> 3);
    }

    int micros() {
        return micros;
    }

    int varianceMicros() {
        return varianceMicros;
    }

    /** {@code RTT + 4 RTTVar} in nanoseconds: UDT's unit for its EXP and NAK intervals. */
    long expiryNanos() {
        return (micros + 4L * varianceMicros) * 1000L;
    }
}
