package io.ferry.transport.udt.proto.interop;

import io.ferry.transport.ledbat.core.ConnectionSink;
import io.ferry.transport.udt.proto.core.UdtConfig;
import io.ferry.transport.udt.proto.core.UdtConnection;
import io.ferry.transport.udt.proto.core.UdtListener;
import io.ferry.transport.udt.proto.wire.UdtPacket;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * The smallest real driver of a {@link UdtConnection}: one thread, one {@link DatagramChannel} on
 * loopback, a selector woken at the connection's deadline. Enough to put the sans-I/O core on a real
 * socket against the C++ UDT4, before the Netty channel does the same.
 */
final class CoreDriver implements AutoCloseable, ConnectionSink {
    /** What the driver does with received data. */
    enum Mode { KEEP, HASH, ECHO }

    private final DatagramChannel socket;
    private final Selector selector;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Consumer<UdtConnection>> commands = new ConcurrentLinkedQueue<>();
    private final Mode mode;
    private final UdtConfig config;
    private UdtListener listener;
    private volatile UdtConnection conn;
    private InetSocketAddress peer;
    private volatile boolean running = true;
    final CompletableFuture<Void> connected = new CompletableFuture<>();
    final CompletableFuture<Throwable> closed = new CompletableFuture<>();
    final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    volatile long bytes;
    volatile long messages;
    private long hash = 0xcbf29ce484222325L;

    private CoreDriver(UdtConfig config, Mode mode, InetSocketAddress bind) throws IOException {
        this.config = config;
        this.mode = mode;
        this.socket = DatagramChannel.open(bind.getAddress() instanceof java.net.Inet6Address
                ? java.net.StandardProtocolFamily.INET6 : java.net.StandardProtocolFamily.INET);
        socket.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4 << 20);
        socket.setOption(java.net.StandardSocketOptions.SO_SNDBUF, 4 << 20);
        socket.bind(bind);
        socket.configureBlocking(false);
        selector = Selector.open();
        socket.register(selector, SelectionKey.OP_READ);
        thread = new Thread(this::loop, "udt-core-driver");
        thread.setDaemon(true);
    }

    static CoreDriver listen(UdtConfig config, Mode mode, InetSocketAddress bind) throws IOException {
        CoreDriver d = new CoreDriver(config, mode, bind);
        d.listener = new UdtListener(config, "0123456789abcdef".getBytes(), System.nanoTime());
        d.thread.start();
        return d;
    }

    static CoreDriver connect(UdtConfig config, Mode mode, InetSocketAddress bind, InetSocketAddress to) throws IOException {
        CoreDriver d = new CoreDriver(config, mode, bind);
        d.peer = to;
        d.conn = UdtConnection.connect(config, 0x4000_0001, (int) (System.nanoTime() & 0x7FFF_FFFF), to.getAddress(), System.nanoTime());
        d.thread.start();
        return d;
    }

    static CoreDriver rendezvous(UdtConfig config, Mode mode, InetSocketAddress bind, InetSocketAddress to) throws IOException {
        CoreDriver d = new CoreDriver(config, mode, bind);
        d.peer = to;
        d.conn = UdtConnection.rendezvous(config, 0x4000_0002, 4242, to.getAddress(), System.nanoTime());
        d.thread.start();
        return d;
    }

    int port() throws IOException {
        return ((InetSocketAddress) socket.getLocalAddress()).getPort();
    }

    /** Runs {@code command} on the driver's thread against the connection. */
    void run(Consumer<UdtConnection> command) {
        commands.add(command);
        selector.wakeup();
    }

    void write(byte[] data) {
        run(c -> {
            c.write(Unpooled.wrappedBuffer(data));
            c.flush(System.nanoTime());
        });
    }

    synchronized long hash() {
        return hash;
    }

    private void loop() {
        ByteBuffer in = ByteBuffer.allocateDirect(65_536);
        try {
            while (running) {
                UdtConnection c = conn;
                long deadline = c == null ? Long.MAX_VALUE : c.nextDeadlineNanos();
                long waitMs = deadline == Long.MAX_VALUE ? 100 : Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
                if (waitMs > 0 && commands.isEmpty()) {
                    selector.select(Math.max(1, waitMs));
                } else {
                    selector.selectNow();
                }
                selector.selectedKeys().clear();
                for (int i = 0; i < 256; i++) {
                    in.clear();
                    InetSocketAddress from = (InetSocketAddress) socket.receive(in);
                    if (from == null) {
                        break;
                    }
                    in.flip();
                    ByteBuf packet = Unpooled.buffer(in.remaining()).writeBytes(in);
                    try {
                        onDatagram(packet, from);
                    } finally {
                        packet.release();
                    }
                }
                c = conn;
                for (Consumer<UdtConnection> cmd; c != null && (cmd = commands.poll()) != null; ) {
                    cmd.accept(c);
                }
                if (c != null) {
                    long now = System.nanoTime();
                    if (c.nextDeadlineNanos() <= now) {
                        c.onTimer(now);
                    }
                    c.collect(this);
                }
            }
        } catch (IOException | RuntimeException e) {
            closed.complete(e);
        }
    }

    private void onDatagram(ByteBuf packet, InetSocketAddress from) throws IOException {
        long now = System.nanoTime();
        if (conn == null && listener != null) {
            if (packet.readableBytes() >= UdtPacket.HEADER_BYTES && UdtPacket.destination(packet) == 0) {
                UdtListener.Answer a = listener.onHandshake(packet, from, now);
                if (a.reply() != null) {
                    sendTo(a.reply(), from);
                }
                if (a.accept() != null) {
                    peer = from;
                    conn = UdtConnection.accept(config, 0x5000_0001, a.accept(), from.getAddress(), now);
                    conn.collect(this);
                }
            }
            return;
        }
        if (conn != null && from.equals(peer)) {
            conn.onDatagram(packet, now);
            conn.collect(this);
        }
    }

    private void sendTo(ByteBuf p, InetSocketAddress to) throws IOException {
        try {
            socket.send(p.nioBuffer(), to);
        } finally {
            p.release();
        }
    }

    @Override
    public void send(ByteBuf packet) {
        try {
            sendTo(packet, peer);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void connected() {
        connected.complete(null);
    }

    @Override
    public void data(ByteBuf payload) {
        int n = payload.readableBytes();
        if (mode == Mode.ECHO) {
            conn.write(payload.retain());
            conn.flush(System.nanoTime());
        } else if (mode == Mode.KEEP) {
            byte[] b = new byte[n];
            payload.getBytes(payload.readerIndex(), b);
            synchronized (kept) {
                kept.writeBytes(b);
            }
        } else {
            synchronized (this) {
                for (int i = payload.readerIndex(); i < payload.writerIndex(); i++) {
                    hash = (hash ^ (payload.getByte(i) & 0xff)) * 0x100000001b3L;
                }
            }
        }
        payload.release();
        bytes += n;
        messages++;
        conn.consumed(n, System.nanoTime());
    }

    @Override
    public void endOfStream() {
    }

    @Override
    public void writabilityChanged(boolean writable) {
    }

    @Override
    public void closed(Throwable causeOrNull) {
        closed.complete(causeOrNull);
    }

    @Override
    public void close() throws Exception {
        running = false;
        selector.wakeup();
        thread.join(5_000);
        UdtConnection c = conn;
        if (c != null) {
            c.abort(System.nanoTime());
            c.collect(this);
            c.releaseUncollected();
        }
        selector.close();
        socket.close();
    }
}
