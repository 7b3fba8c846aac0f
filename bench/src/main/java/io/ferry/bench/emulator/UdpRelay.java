package io.ferry.bench.emulator;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The link emulator for UDP without root: an in-process relay on loopback between clients and one
 * UDP server, applying one {@link LinkModel} per direction (seeded loss, rate limit with a drop-tail
 * queue, fixed delay). All clients share the same two directions, so several flows through one relay
 * compete for one bottleneck. Rate and queue count UDP payload bytes.
 *
 * <p>Clients send to {@link #address()}; each client gets its own socket towards the server, so the
 * server sees one distinct peer address per client.
 */
public final class UdpRelay implements AutoCloseable {

    private final DatagramSocket front;
    private final InetSocketAddress server;
    private final LinkDirection toServer;
    private final LinkDirection toClient;
    private final DelayLine toServerLine;
    private final DelayLine toClientLine;
    private final Map<SocketAddress, Session> sessions = new ConcurrentHashMap<>();
    private final Thread frontReceiver;
    private volatile boolean closed;

    private final class Session {
        final SocketAddress client;
        final DatagramSocket back;
        final Thread receiver;

        Session(SocketAddress client) throws SocketException {
            this.client = client;
            this.back = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            this.receiver = new Thread(this::receive, "udp-relay-back-" + back.getLocalPort());
            receiver.setDaemon(true);
            receiver.start();
        }

        private void receive() {
            byte[] buffer = new byte[65_536];
            while (!back.isClosed()) {
                DatagramPacket p = new DatagramPacket(buffer, buffer.length);
                try {
                    back.receive(p);
                } catch (IOException closedSocket) {
                    return;
                }
                forward(toClient, toClientLine, p, front, client);
            }
        }
    }

    /**
     * Starts a relay on an ephemeral loopback port.
     *
     * @param server   where datagrams from clients go
     * @param toServer what the link does to client-to-server datagrams
     * @param toClient what the link does to server-to-client datagrams
     */
    public UdpRelay(InetSocketAddress server, LinkModel toServer, LinkModel toClient) throws SocketException {
        this.front = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.server = server;
        this.toServer = new LinkDirection(toServer);
        this.toClient = new LinkDirection(toClient);
        this.toServerLine = new DelayLine("udp-relay-to-server");
        this.toClientLine = new DelayLine("udp-relay-to-client");
        front.setReceiveBufferSize(4 << 20);
        this.frontReceiver = new Thread(this::receiveFront, "udp-relay-front");
        frontReceiver.setDaemon(true);
        frontReceiver.start();
    }

    /** Where clients send. */
    public InetSocketAddress address() {
        return (InetSocketAddress) front.getLocalSocketAddress();
    }

    /** The client-to-server direction. */
    public LinkDirection toServer() {
        return toServer;
    }

    /** The server-to-client direction. */
    public LinkDirection toClient() {
        return toClient;
    }

    private void receiveFront() {
        byte[] buffer = new byte[65_536];
        while (!front.isClosed()) {
            DatagramPacket p = new DatagramPacket(buffer, buffer.length);
            try {
                front.receive(p);
            } catch (IOException closedSocket) {
                return;
            }
            Session session = sessions.get(p.getSocketAddress());
            if (session == null) {
                try {
                    session = new Session(p.getSocketAddress());
                } catch (SocketException e) {
                    continue;
                }
                sessions.put(session.client, session);
            }
            forward(toServer, toServerLine, p, session.back, server);
        }
    }

    private static void forward(LinkDirection link, DelayLine line, DatagramPacket p, DatagramSocket via, SocketAddress to) {
        long due;
        synchronized (link) {
            due = link.offer(p.getLength(), System.nanoTime());
        }
        if (due >= 0) {
            line.schedule(due, Arrays.copyOfRange(p.getData(), p.getOffset(), p.getOffset() + p.getLength()), via, to);
        }
    }

    /** Stops relaying and closes every socket. Idempotent. */
    @Override
    public void close() throws InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        front.close();
        frontReceiver.join(2_000);
        for (Session s : sessions.values()) {
            s.back.close();
            s.receiver.join(2_000);
        }
        toServerLine.close();
        toClientLine.close();
    }
}
