package io.ferry.bench.accuracy;

import io.ferry.bench.netns.Host;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;

/** A UDP sink on a host that counts datagrams and notes when the first and last arrived. */
public final class UdpCounter implements AutoCloseable {

    private final DatagramSocket socket;
    private final Thread thread;
    private volatile long datagrams;
    private volatile long payloadBytes;
    private volatile long firstNanos;
    private volatile long lastNanos;
    private volatile int firstLength;

    private UdpCounter(DatagramSocket socket) throws IOException {
        this.socket = socket;
        socket.setReceiveBufferSize(4 << 20);
        socket.setSoTimeout(100);
        this.thread = new Thread(this::run, "udp-counter-" + socket.getLocalPort());
        thread.setDaemon(true);
        thread.start();
    }

    /** Starts a counter listening on an ephemeral port of the host's address. */
    public static UdpCounter start(Host host) throws Exception {
        return host.call(() -> new UdpCounter(new DatagramSocket(new InetSocketAddress(InetAddress.getByName(host.address()), 0))));
    }

    /** Where to send. */
    public InetSocketAddress address() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    /** Datagrams received so far. */
    public long datagrams() {
        return datagrams;
    }

    /** Payload bytes received so far. */
    public long payloadBytes() {
        return payloadBytes;
    }

    /**
     * The arrival rate in bits per second between the first and the last datagram, counting
     * {@code overheadBytes} per datagram on top of its payload (28 for IPv4 + UDP headers), or 0 if
     * fewer than two datagrams arrived.
     */
    public double arrivalRateBitsPerSecond(int overheadBytes) {
        long n = datagrams;
        long span = lastNanos - firstNanos;
        if (n < 2 || span <= 0) {
            return 0;
        }
        long bytes = payloadBytes - firstLength + (n - 1) * (long) overheadBytes;
        return bytes * 8e9 / span;
    }

    private void run() {
        byte[] buffer = new byte[65_536];
        while (!socket.isClosed()) {
            DatagramPacket p = new DatagramPacket(buffer, buffer.length);
            try {
                socket.receive(p);
            } catch (SocketTimeoutException idle) {
                continue;
            } catch (IOException closed) {
                return;
            }
            long now = System.nanoTime();
            if (datagrams == 0) {
                firstNanos = now;
                firstLength = p.getLength();
            }
            lastNanos = now;
            payloadBytes += p.getLength();
            datagrams++;
        }
    }

    @Override
    public void close() throws InterruptedException {
        socket.close();
        thread.join(2_000);
    }
}
