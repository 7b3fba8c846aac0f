package io.ferry.bench.accuracy;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.util.concurrent.locks.LockSupport;

/**
 * Sends datagrams of one size at a fixed average interval (or back to back with interval 0), catching
 * up in small bursts when the thread wakes late so that the average rate holds.
 */
public final class PacedUdpSender {

    private PacedUdpSender() {
    }

    /**
     * Sends {@code count} datagrams of {@code size} bytes from {@code socket} to {@code target}, one every
     * {@code intervalNanos} on average (0: as fast as the socket takes them).
     *
     * @return how many were handed to the kernel without an error
     */
    public static long send(DatagramSocket socket, InetSocketAddress target, int size, long count, long intervalNanos) throws IOException {
        byte[] payload = new byte[size];
        DatagramPacket packet = new DatagramPacket(payload, size, target);
        long start = System.nanoTime();
        long sent = 0;
        for (long i = 0; i < count; i++) {
            if (intervalNanos > 0) {
                long due = start + i * intervalNanos;
                long wait = due - System.nanoTime();
                if (wait > 20_000) {
                    LockSupport.parkNanos(wait);
                }
            }
            payload[0] = (byte) i;
            try {
                socket.send(packet);
                sent++;
            } catch (IOException e) {
                if (socket.isClosed()) {
                    throw e;
                }
            }
        }
        return sent;
    }
}
