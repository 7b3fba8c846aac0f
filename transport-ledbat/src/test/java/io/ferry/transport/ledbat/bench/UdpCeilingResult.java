package io.ferry.transport.ledbat.bench;

/**
 * What a UDP ceiling's receiver counted ({@link Iperf3Udp}, {@link GsoCeiling}): bytes, seconds, the CPU
 * seconds of both processes, and the share the sender sent that never arrived.
 */
record UdpCeilingResult(long bytesReceived, double seconds, double cpuSeconds, double lostPercent) {
}
