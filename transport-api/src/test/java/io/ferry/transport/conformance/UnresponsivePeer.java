package io.ferry.transport.conformance;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;

/**
 * An address where something is bound but never answers a connection attempt, to provoke connect
 * timeouts on loopback. The default swallows UDP datagrams; TCP transports supply their own.
 */
public interface UnresponsivePeer extends AutoCloseable {

    /** The address to connect to. */
    InetSocketAddress address();

    @Override
    void close() throws IOException;

    /** A UDP socket on loopback that reads and discards everything sent to it. */
    static UnresponsivePeer udpBlackHole() throws IOException {
        DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread drain = new Thread(() -> {
            byte[] buffer = new byte[65_536];
            while (!socket.isClosed()) {
                try {
                    socket.receive(new DatagramPacket(buffer, buffer.length));
                } catch (SocketException closed) {
                    return;
                } catch (IOException ignored) {
                    // keep swallowing
                }
            }
        }, "udp-black-hole");
        drain.setDaemon(true);
        drain.start();
        return new UnresponsivePeer() {
            @Override
            public InetSocketAddress address() {
                return (InetSocketAddress) socket.getLocalSocketAddress();
            }

            @Override
            public void close() {
                socket.close();
            }
        };
    }
}
