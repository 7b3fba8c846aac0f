package io.ferry.transport.ledbat.channel;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A UDP relay on loopback between one client and one server that drops datagrams at random (seeded)
 * and delays the rest by a fixed one-way delay: a lossy long path for UDP transports, without root.
 */
final class LossyUdpRelay implements AutoCloseable {
    private final DatagramSocket socket;
    private final InetSocketAddress server;
    private final double lossRate;
    private final long delayNanos;
    private final SplittableRandom random;
    private final PriorityQueue<Pending> queue = new PriorityQueue<>((a, b) -> Long.compare(a.due, b.due));
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong forwarded = new AtomicLong();
    private final Thread receiver;
    private final Thread sender;
    private volatile SocketAddress client;

    private record Pending(long due, byte[] data, SocketAddress to) {
    }

    LossyUdpRelay(InetSocketAddress server, double lossRate, long oneWayDelayMillis, long seed) throws SocketException {
        this.socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.server = server;
        this.lossRate = lossRate;
        this.delayNanos = oneWayDelayMillis * 1_000_000L;
        this.random = new SplittableRandom(seed);
        this.receiver = new Thread(this::receive, "lossy-relay-receive");
        this.sender = new Thread(this::send, "lossy-relay-send");
        receiver.setDaemon(true);
        sender.setDaemon(true);
        receiver.start();
        sender.start();
    }

    /** Where the client should connect. */
    InetSocketAddress address() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    long dropped() {
        return dropped.get();
    }

    long forwarded() {
        return forwarded.get();
    }

    private void receive() {
        byte[] buffer = new byte[65_536];
        while (!socket.isClosed()) {
            DatagramPacket p = new DatagramPacket(buffer, buffer.length);
            try {
                socket.receive(p);
            } catch (IOException closed) {
                return;
            }
            SocketAddress from = p.getSocketAddress();
            SocketAddress to;
            if (from.equals(server)) {
                to = client;
            } else {
                client = from;
                to = server;
            }
            if (to == null) {
                continue;
            }
            boolean drop;
            synchronized (random) {
                drop = random.nextDouble() < lossRate;
            }
            if (drop) {
                dropped.incrementAndGet();
                continue;
            }
            byte[] copy = java.util.Arrays.copyOf(p.getData(), p.getLength());
            synchronized (queue) {
                queue.add(new Pending(System.nanoTime() + delayNanos, copy, to));
                queue.notifyAll();
            }
        }
    }

    private void send() {
        while (!socket.isClosed()) {
            Pending next;
            synchronized (queue) {
                next = queue.peek();
                long wait = next == null ? 50_000_000L : next.due - System.nanoTime();
                if (wait > 0) {
                    try {
                        queue.wait(Math.max(1, wait / 1_000_000), (int) (wait % 1_000_000 == 0 ? 0 : Math.min(999_999, wait % 1_000_000)));
                    } catch (InterruptedException e) {
                        return;
                    }
                    continue;
                }
                queue.poll();
            }
            try {
                socket.send(new DatagramPacket(next.data, next.data.length, next.to));
                forwarded.incrementAndGet();
            } catch (IOException closed) {
                return;
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        socket.close();
        receiver.join(2000);
        sender.interrupt();
        sender.join(2000);
    }
}
