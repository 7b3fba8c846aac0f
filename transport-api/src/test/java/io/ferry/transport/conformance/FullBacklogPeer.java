package io.ferry.transport.conformance;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP listener that never accepts and whose accept queue is full, so the kernel drops further SYNs
 * and a new connect hangs until its timeout: a connect timeout on loopback without touching firewall rules.
 */
public final class FullBacklogPeer implements UnresponsivePeer {
    private final ServerSocket listener;
    private final List<Socket> fillers = new ArrayList<>();

    public FullBacklogPeer() throws IOException {
        listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        for (int i = 0; i < 16; i++) {
            Socket s = new Socket();
            try {
                s.connect(listener.getLocalSocketAddress(), 300);
                fillers.add(s);
            } catch (SocketTimeoutException full) {
                s.close();
                return;
            }
        }
        close();
        throw new IOException("could not fill the accept queue of a backlog-1 listener");
    }

    @Override
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.getLocalSocketAddress();
    }

    @Override
    public void close() throws IOException {
        for (Socket s : fillers) {
            s.close();
        }
        listener.close();
    }
}
