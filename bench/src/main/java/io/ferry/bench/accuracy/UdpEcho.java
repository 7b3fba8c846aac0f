package io.ferry.bench.accuracy;

import io.ferry.bench.netns.Host;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/** A UDP echo responder on a host: sends every datagram back to where it came from. */
final class UdpEcho implements AutoCloseable {

    private final DatagramSocket socket;
    private final Thread thread;

    private UdpEcho(DatagramSocket socket) {
        this.socket = socket;
        this.thread = new Thread(this::run, "udp-echo-" + socket.getLocalPort());
        thread.setDaemon(true);
        thread.start();
    }

    static UdpEcho start(Host host) throws Exception {
        return host.call(() -> new UdpEcho(new DatagramSocket(new InetSocketAddress(InetAddress.getByName(host.address()), 0))));
    }

    InetSocketAddress address() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    private void run() {
        byte[] buffer = new byte[65_536];
        while (!socket.isClosed()) {
            DatagramPacket p = new DatagramPacket(buffer, buffer.length);
            try {
                socket.receive(p);
                socket.send(p);
            } catch (IOException closed) {
                return;
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        socket.close();
        thread.join(2_000);
    }
}
