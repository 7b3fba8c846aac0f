package io.ferry.transport.conformance;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP relay on loopback that forwards each direction at a limited rate through
 * small socket buffers, so that a writer's bytes wait in its own kernel, unacknowledged, as they would
 * on a slow path. {@link #blackhole()} stops all forwarding. (TCP cannot be made lossy without a network
 * namespace and root; a slow path is what makes a close race its data here.)
 */
public final class SlowTcpRelay implements ImpairedPath {
    private static final int BUFFER = 16 << 10;
    private static final int CHUNK = 4 << 10;

    private final ServerSocket listener;
    private final InetSocketAddress server;
    private final long bytesPerSecond;
    private final List<Socket> sockets = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean blackhole;
    private final java.util.Set<Integer> paused = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public SlowTcpRelay(InetSocketAddress server, long bytesPerSecond) throws IOException {
        this.server = server;
        this.bytesPerSecond = bytesPerSecond;
        this.listener = new ServerSocket();
        listener.setReceiveBufferSize(BUFFER); // accepted sockets inherit it: a small window towards the writer
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        start(new Thread(this::accept, "slow-tcp-relay-accept"));
    }

    private void start(Thread t) {
        t.setDaemon(true);
        synchronized (threads) {
            threads.add(t);
        }
        t.start();
    }

    /** Relays every connection that comes (a striped client opens several), each at the rate limit. */
    private void accept() {
        try {
            for (;;) {
                Socket client = listener.accept();
                Socket upstream = new Socket();
                upstream.setSendBufferSize(BUFFER);
                upstream.connect(server);
                synchronized (sockets) {
                    sockets.add(client);
                    sockets.add(upstream);
                }
                int index;
                synchronized (sockets) {
                    index = sockets.size() / 2 - 1;
                }
                start(new Thread(() -> pump(index, client, upstream), "slow-tcp-relay-up"));
                start(new Thread(() -> pump(index, upstream, client), "slow-tcp-relay-down"));
            }
        } catch (IOException closedMeanwhile) {
            // the relay was closed
        }
    }

    /** Copies {@code from} to {@code to} at the rate limit; ends the direction (FIN) when {@code from} ends. */
    private void pump(int index, Socket from, Socket to) {
        byte[] chunk = new byte[CHUNK];
        long start = System.nanoTime();
        long moved = 0;
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (;;) {
                while ((blackhole || paused.contains(index)) && !closed) {
                    LockSupport.parkNanos(5_000_000L); // a dead path: nothing read, nothing forwarded
                }
                int n = in.read(chunk);
                if (n < 0) {
                    to.shutdownOutput();
                    return;
                }
                if (blackhole) {
                    continue; // read just before the path died: lost with it
                }
                out.write(chunk, 0, n);
                moved += n;
                long due = start + moved * 1_000_000_000L / bytesPerSecond;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            }
        } catch (IOException closedOrReset) {
            // the other side reset, or the relay closed
        }
    }

    @Override
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.getLocalSocketAddress();
    }

    @Override
    public void blackhole() {
        blackhole = true;
    }

    /**
     * Stops forwarding the {@code index}-th connection (in the order they came), both ways, losing
     * nothing: its bytes wait in the sockets' buffers, as on a path that stalled, until {@link #resume}.
     */
    public void pause(int index) {
        paused.add(index);
    }

    /** Forwards a paused connection again. */
    public void resume(int index) {
        paused.remove(index);
    }

    /** What the relay's receiving sockets may hold (each its window, doubled by the kernel) plus one chunk in hand each. */
    @Override
    public long maxHeldBytes() {
        int connections;
        synchronized (sockets) {
            connections = Math.max(1, sockets.size() / 2);
        }
        return connections * (4L * BUFFER + CHUNK);
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        synchronized (sockets) {
            for (Socket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
        List<Thread> all;
        synchronized (threads) {
            all = new ArrayList<>(threads);
        }
        for (Thread t : all) {
            t.join(2000);
        }
    }

    @Override
    public String toString() {
        return "slow TCP relay (" + bytesPerSecond / 1000 + " kB/s each way)";
    }
}
