package io.ferry.cli.perf;

/**
 * One timed bulk test: a transport, a direction, what the receiver counted, and what it cost.
 *
 * @param transport          the spec tested, such as {@code utp} or {@code tcp?streams=4}
 * @param direction          {@code up} (client to server), {@code down}, or {@code bidir-up} / {@code bidir-down}
 * @param seconds            the test's length
 * @param bytes              bytes the receiver counted within it
 * @param perSecondMbps      the receiver's rate in each second, Mbit/s
 * @param rttIdleMillis      the control connection's round trip before any test (median)
 * @param rttLoadedMillis    the same round trip during the test, from its second second on (median), or NaN
 * @param sender             the sending transport's own statistics at the end
 * @param senderCpuPerGiB    CPU seconds the sending process used per GiB delivered, or NaN
 * @param receiverCpuPerGiB  the same for the receiving process
 * @param error              why the test failed, or null
 */
public record BulkResult(String transport, String direction, double seconds, long bytes, double[] perSecondMbps,
                  double rttIdleMillis, double rttLoadedMillis, Statistics sender, double senderCpuPerGiB,
                  double receiverCpuPerGiB, String error) {

    static BulkResult failed(String transport, String direction, double seconds, double rttIdle, String error) {
        return new BulkResult(transport, direction, seconds, 0, new double[0], rttIdle, Double.NaN, Statistics.NONE,
                Double.NaN, Double.NaN, error);
    }

    /** Goodput over the test, Mbit/s. */
    public double goodputMbps() {
        return seconds <= 0 ? 0 : bytes * 8 / seconds / 1e6;
    }

    public boolean ok() {
        return error == null;
    }

    static double cpuPerGiB(long cpuNanos, long bytes) {
        return cpuNanos < 0 || bytes <= 0 ? Double.NaN : cpuNanos / 1e9 / (bytes / (double) (1L << 30));
    }
}
