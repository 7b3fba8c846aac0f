package io.ferry.transport.conformance;

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
 * A UDP relay on loopback between clients and one server that drops datagrams at random (seeded)
 * and delays the rest by a fixed one-way delay: a lossy long path for UDP transports, without root.
 * The first client's datagrams reach the server from the relay's own socket; each further client (a
 * striped connection's other members, say) gets a socket of its own towards the server, as behind a NAT.
 * {@link #blackhole()} makes it drop everything from then on, like a path that went dead.
 */
public final class LossyUdpRelay implements ImpairedPath {
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
    private volatile boolean blackhole;
    /** The sequence number of the last 20-byte-or-longer datagram relayed from the server, and from the client. */
    private volatile int lastServerSeq = -1;
    private volatile int lastClientSeq = -1;
    private final java.util.concurrent.CompletableFuture<Integer> clientConnectionId = new java.util.concurrent.CompletableFuture<>();

    private final java.util.Map<SocketAddress, DatagramSocket> upstreams = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.List<Thread> upstreamReceivers = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    private record Pending(long due, byte[] data, SocketAddress to, DatagramSocket via) {
    }

    public LossyUdpRelay(InetSocketAddress server, double lossRate, long oneWayDelayMillis, long seed) throws SocketException {
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
    @Override
    public InetSocketAddress address() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    /** The connection id on the first packet after the client's SYN (for tests that forge packets of a connection). */
    public java.util.concurrent.CompletableFuture<Integer> firstClientConnectionId() {
        return clientConnectionId;
    }

    /** BEP 29's {@code seq_nr} of the last packet relayed from the server (-1 before any). */
    public int lastServerSeq() {
        return lastServerSeq;
    }

    /** BEP 29's {@code seq_nr} of the last packet relayed from the client (-1 before any). */
    public int lastClientSeq() {
        return lastClientSeq;
    }

    /** Sends {@code datagram} to the server from the relay's socket, so that it appears to come from the client. */
    public void injectToServer(byte[] datagram) throws IOException {
        socket.send(new DatagramPacket(datagram, datagram.length, server));
    }

    @Override
    public void blackhole() {
        blackhole = true;
    }

    /** A datagram relay acknowledges nothing itself. */
    @Override
    public long maxHeldBytes() {
        return 0;
    }

    public long dropped() {
        return dropped.get();
    }

    public long forwarded() {
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
            DatagramSocket via = socket;
            if (!from.equals(server) && client != null && !from.equals(client)) {
                try {
                    via = upstreamFor(from);
                } catch (SocketException closed) {
                    return;
                }
                relay(p, server, via);
                continue;
            }
            if (from.equals(server)) {
                to = client;
                if (p.getLength() >= 20) {
                    lastServerSeq = ((p.getData()[16] & 0xFF) << 8) | (p.getData()[17] & 0xFF);
                }
            } else {
                if (p.getLength() >= 20) {
                    lastClientSeq = ((p.getData()[16] & 0xFF) << 8) | (p.getData()[17] & 0xFF);
                }
                client = from;
                to = server;
                if (p.getLength() >= 4 && (p.getData()[0] & 0xF0) != 0x40 && !clientConnectionId.isDone()) {
                    // BEP 29: the connection id of the client's packets after its SYN, which the server keys it by
                    clientConnectionId.complete(((p.getData()[2] & 0xFF) << 8) | (p.getData()[3] & 0xFF));
                }
            }
            if (to == null) {
                continue;
            }
            relay(p, to, via);
        }
    }

    /** The relay's own socket towards the server for a further client, and the thread bringing the server's answers back. */
    private DatagramSocket upstreamFor(SocketAddress client) throws SocketException {
        DatagramSocket existing = upstreams.get(client);
        if (existing != null) {
            return existing;
        }
        DatagramSocket upstream = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        upstreams.put(client, upstream);
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[65_536];
            while (!upstream.isClosed()) {
                DatagramPacket p = new DatagramPacket(buffer, buffer.length);
                try {
                    upstream.receive(p);
                } catch (IOException closed) {
                    return;
                }
                relay(p, client, socket);
            }
        }, "lossy-relay-upstream");
        t.setDaemon(true);
        upstreamReceivers.add(t);
        t.start();
        return upstream;
    }

    /** Drops {@code p} at the loss rate, or queues it to go to {@code to} from {@code via} after the delay. */
    private void relay(DatagramPacket p, SocketAddress to, DatagramSocket via) {
        boolean drop;
        synchronized (random) {
            drop = random.nextDouble() < lossRate;
        }
        if (drop || blackhole) {
            dropped.incrementAndGet();
            return;
        }
        byte[] copy = java.util.Arrays.copyOf(p.getData(), p.getLength());
        synchronized (queue) {
            queue.add(new Pending(System.nanoTime() + delayNanos, copy, to, via));
            queue.notifyAll();
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
            if (blackhole) {
                dropped.incrementAndGet();
                continue;
            }
            try {
                next.via.send(new DatagramPacket(next.data, next.data.length, next.to));
                forwarded.incrementAndGet();
            } catch (IOException closed) {
                return;
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        socket.close();
        for (DatagramSocket upstream : upstreams.values()) {
            upstream.close();
        }
        synchronized (upstreamReceivers) {
            for (Thread t : upstreamReceivers) {
                t.join(2000);
            }
        }
        receiver.join(2000);
        sender.interrupt();
        sender.join(2000);
    }

    @Override
    public String toString() {
        return "lossy UDP relay (" + lossRate * 100 + " % loss, " + delayNanos / 1_000_000 + " ms one way)";
    }
}
