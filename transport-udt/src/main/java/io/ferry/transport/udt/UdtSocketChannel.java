package io.ferry.transport.udt;

import com.barchart.udt.ErrorUDT;
import com.barchart.udt.ExceptionUDT;
import com.barchart.udt.LingerUDT;
import com.barchart.udt.OptionUDT;
import com.barchart.udt.SocketUDT;
import com.barchart.udt.StatusUDT;
import com.barchart.udt.nio.SocketChannelUDT;
import io.ferry.transport.TransportStatistics;
import io.ferry.transport.UndeliveredDataException;
import io.ferry.transport.spi.ByteCountingHandler;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.FileRegion;
import io.netty.channel.nio.AbstractNioByteChannel;
import io.netty.channel.nio.NioIoOps;
import io.netty.channel.socket.SocketChannel;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.WritableByteChannel;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One UDT connection as a Netty {@link DuplexChannel}, written by Ferry over barchart-udt's NIO
 * channel and selector (it does not use Netty's deprecated UDT transport).
 *
 * <p>In the default framed stream mode each write travels as a frame (a 4-byte length, then the bytes)
 * and a zero length ends the stream, which gives UDT the half-close it lacks: {@link #shutdownOutput()}
 * sends it, and the peer sees end of stream after every byte. A graceful close sends it too, waits (up
 * to {@link UdtChannelOption#LINGER}, off the event loop) until UDT has every byte acknowledged, then
 * closes; an abortive close drops what is unsent and the peer sees a reset. In raw stream and message
 * mode the bytes go as they are and a peer's close, which UDT reports as a broken connection, is an
 * orderly end of stream.
 */
public final class UdtSocketChannel extends AbstractNioByteChannel implements SocketChannel, io.ferry.transport.spi.UserSpaceStream {

    private static final ChannelMetadata METADATA = new ChannelMetadata(false, 16);

    private final SocketChannelUDT udt;
    private final SocketUDT socket;
    private final UdtChannelConfig config;
    private final UdtSettings.StreamMode mode;
    private final AtomicBoolean released = new AtomicBoolean();
    private final UdtMonitor monitor;
    /** Ferry's rate control, from the first write on (event loop), or null. */
    private UdtPacer pacer;

    private final UdtStreamReader reader;
    private final UdtStreamWriter writer;

    private volatile boolean connected;
    private volatile boolean inputShutdown;
    private volatile boolean outputShutdown;
    private volatile boolean aborting;
    /** The close in progress (event loop), or null. */
    private UdtLinger closing;
    private volatile InetSocketAddress remote;

    UdtSocketChannel(Channel parent, SocketChannelUDT udt, UdtSettings settings, boolean accepted) {
        super(parent, udt);
        this.udt = udt;
        this.socket = udt.socketUDT();
        this.mode = settings.mode;
        this.config = new UdtChannelConfig(this, socket, settings);
        this.monitor = new UdtMonitor(socket, config);
        this.reader = new UdtStreamReader(socket, mode, this::armLostEventCheck, () -> remote);
        this.writer = new UdtStreamWriter(socket, mode, this::armLostEventCheck, () -> remote);
        this.connected = accepted;
        if (accepted) {
            remote = remoteOf(socket);
        }
    }

    /** A client channel on a new UDT socket with the settings written to it. */
    static UdtSocketChannel newClient(UdtSettings settings) throws IOException {
        return UdtRuntime.open(UdtTransport.provider(settings)::openSocketChannel, settings,
                udt -> new UdtSocketChannel(null, udt, settings, false));
    }

    @Override
    public UdtChannelConfig config() {
        return config;
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    @Override
    public boolean isActive() {
        return udt.isOpen() && connected;
    }

    @Override
    public UdtServerChannel parent() {
        return (UdtServerChannel) super.parent();
    }

    @Override
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) super.localAddress();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) super.remoteAddress();
    }

    @Override
    protected SocketAddress localAddress0() {
        return UdtChannelConfig.localAddressOf(socket);
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    // ------------------------------------------------------------------ what a lingering close reads (event loop)

    boolean framed() {
        return mode == UdtSettings.StreamMode.FRAMED;
    }

    boolean finSent() {
        return writer.finSent();
    }

    boolean finReceived() {
        return reader.finReceived();
    }

    long outFrameRemaining() {
        return writer.frameRemaining();
    }

    /** When bytes were last read (the peer's last bytes need UDT's acknowledgement before the socket closes). */
    long lastReadNanos() {
        return lastReadNanos;
    }

    boolean aborting() {
        return aborting;
    }

    /** Closes the channel now (the linger is over), completing {@code promise}. */
    void closeNow(ChannelPromise promise) {
        ((UdtUnsafe) unsafe()).closeNow(promise);
    }

    /** The native socket, for tests and tools that read UDT state directly. */
    SocketUDT socketUDT() {
        return socket;
    }

    // ------------------------------------------------------------------ connect

    @Override
    protected void doBind(SocketAddress localAddress) throws Exception {
        socket.bind(UdtAddresses.ipv4(localAddress, "bind to"));
    }

    @Override
    protected boolean doConnect(SocketAddress remoteAddress, SocketAddress localAddress) throws Exception {
        boolean success = false;
        try {
            // inside the try: a refused address closes the channel before the connect promise fails
            InetSocketAddress bindTo = localAddress != null ? (InetSocketAddress) localAddress : config.settings().bindAddress;
            if (bindTo != null) {
                socket.bind(UdtAddresses.ipv4(bindTo, "bind to"));
            }
            this.remote = UdtAddresses.ipv4(remoteAddress, "connect to");
            boolean done = udt.connect(remote);
            if (done) {
                connected = true;
            } else {
                addAndSubmit(NioIoOps.CONNECT);
            }
            success = true;
            return done;
        } catch (ExceptionUDT e) {
            ConnectException failure = new ConnectException("UDT connect to " + remoteAddress + " failed: " + e.getMessage());
            failure.initCause(e);
            throw failure;
        } finally {
            if (!success) {
                doClose();
            }
        }
    }

    @Override
    protected void doFinishConnect() throws Exception {
        if (connected) {
            // barchart reports every operation ready on a broken socket; a finished connect stays finished
            removeAndSubmit(NioIoOps.CONNECT);
            return;
        }
        boolean done;
        try {
            done = udt.finishConnect();
        } catch (IOException e) {
            done = false;
        }
        if (!done && handshakeCompleted()) {
            // the peer answered and closed at once: connected, as over TCP, and the reads then find the end
            removeAndSubmit(NioIoOps.CONNECT);
            connected = true;
            return;
        }
        if (!done) {
            StatusUDT status = socket.status();
            ConnectException failure = new ConnectException("UDT handshake with " + remote + " failed (socket " + status
                    + "): no UDT listener answered there, or the host is unreachable; UDT cannot tell these apart"
                    + " and gives up after about 3 s (30 s for rendezvous)");
            throw failure;
        }
        removeAndSubmit(NioIoOps.CONNECT);
        connected = true;
    }

    /**
     * Whether UDT finished this socket's handshake though it no longer reports it connected: a peer that
     * closed the moment it accepted leaves the socket BROKEN before the connect is looked at. UDT's monitor
     * tells them apart: it refuses a socket that never connected as "not connected" and one that connected
     * and broke as "connection lost".
     */
    private boolean handshakeCompleted() {
        try {
            socket.updateMonitor(false);
            return true;
        } catch (ExceptionUDT e) {
            return e.getError() == ErrorUDT.ECONNLOST;
        }
    }

    @Override
    protected void doDisconnect() throws Exception {
        doClose();
    }

    // ------------------------------------------------------------------ read

    /*
     * UDT's epoll never signals some reads. barchart applies every interest change as "remove from
     * epoll, add again", and UDT re-raises the read event on that add only while the connection is
     * intact: once the peer has shut the connection down, bytes still in UDT's receive buffer (often the
     * peer's last words before it closed) raise no event, and neither does the shutdown itself. The same
     * holds for an end-of-stream frame already taken off the wire. Read interest registered in such a
     * state (a slow channelActive, autoRead switched back on, OP_WRITE toggled) would wait forever, so
     * the channel reads those bytes itself, one read at a time, until they are gone and the read reports
     * the end of the stream.
     */
    private boolean unsignalledReadScheduled;

    @Override
    protected void addAndSubmit(NioIoOps ops) {
        super.addAndSubmit(ops);
        readWhatUdtWillNotSignal();
    }

    @Override
    protected void removeAndSubmit(NioIoOps ops) {
        super.removeAndSubmit(ops);
        readWhatUdtWillNotSignal();
    }

    private void readWhatUdtWillNotSignal() {
        if (unsignalledReadScheduled || !wantsUnsignalledRead()) {
            return;
        }
        unsignalledReadScheduled = true;
        eventLoop().execute(() -> {
            unsignalledReadScheduled = false;
            if (wantsUnsignalledRead()) {
                ((NioUnsafe) unsafe()).read();
                readWhatUdtWillNotSignal();
            }
        });
    }

    private boolean wantsUnsignalledRead() {
        if (!isOpen() || !connected || inputShutdown || closing != null) {
            // closing: the end of the stream was read (or the application closed); reading it again
            // would only fire empty read-completes, whose handlers ask for another read
            return false;
        }
        SelectionKey key = selectionKey();
        if (key == null || !key.isValid() || (key.interestOps() & SelectionKey.OP_READ) == 0) {
            return false;
        }
        return reader.finReceived() || socket.status() != StatusUDT.CONNECTED;
    }

    private long lastReadNanos;

    @Override
    protected int doReadBytes(ByteBuf buf) throws Exception {
        boolean ended = reader.finReceived();
        int n = inputShutdown ? -1 : reader.read(buf, unsafe().recvBufAllocHandle());
        if (n > 0 || (n < 0 && !ended)) {
            // the end-of-stream frame counts once: a read that finds it again must not push the close's
            // grace on (Netty's StartTls test, auto-read off, read again on every read-complete, and the
            // close never ended)
            lastReadNanos = System.nanoTime();
        }
        return n;
    }

    // ------------------------------------------------------------------ write

    /**
     * In message mode every buffer is one UDT message, sent whole or not at all; one that can never
     * fit fails alone instead of shutting the channel's output as a failed write would.
     */
    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (pacer == null && config.settings().usesFerryRateControl()) {
            pacer = UdtPacer.start(socket, config, eventLoop(), this::isOpen);
        }
        if (peerGoneWhileUnread != null) {
            failAll(in, peerGoneWhileUnread);
            return;
        }
        try {
            if (mode != UdtSettings.StreamMode.MESSAGE) {
                writeStreamGathered(in);
            } else {
                writeMessages(in);
            }
        } catch (IOException e) {
            if (!(e.getCause() instanceof ExceptionUDT) || !UdtStreamReader.isConnectionGone((ExceptionUDT) e.getCause()) || !hasUnreadInput()) {
                throw e;
            }
            // The peer has closed, but what it sent before closing is still unread: failing the write
            // would close the channel and lose those bytes, so the writes fail alone and the reads go on
            // until the end of the stream (or the reset) closes the channel.
            peerGoneWhileUnread = e;
            failAll(in, e);
            readWhatUdtWillNotSignal();
        }
    }

    private IOException peerGoneWhileUnread;

    /**
     * Stream modes: runs of small buffers leave through {@link UdtStreamWriter#sendGathered} (one send
     * each); a large buffer or a file region is written in place by Netty's loop.
     */
    private void writeStreamGathered(ChannelOutboundBuffer in) throws Exception {
        int spins = config.getWriteSpinCount();
        while (spins-- > 0) {
            Object msg = in.current();
            if (msg == null) {
                clearOpWrite();
                return;
            }
            int unsent = writer.gathers(msg) ? writer.sendGathered(in) : -1;
            if (unsent < 0) {
                super.doWrite(in); // a large buffer or a file region, in place; or empty buffers only
                return;
            }
            if (unsent > 0) {
                incompleteWrite(true);
                return;
            }
        }
        incompleteWrite(false);
    }

    private void failAll(ChannelOutboundBuffer in, IOException cause) {
        while (in.current() != null) {
            in.remove(cause);
        }
        clearOpWrite();
    }

    /** True while bytes the peer sent are still in UDT's receive buffer, or its end of stream is undelivered. */
    private boolean hasUnreadInput() {
        if (inputShutdown) {
            return false;
        }
        if (reader.finReceived()) {
            return true;
        }
        try {
            return socket.getOption(OptionUDT.UDT_RCVDATA) > 0;
        } catch (ExceptionUDT | RuntimeException gone) {
            return false;
        }
    }

    private void writeMessages(ChannelOutboundBuffer in) throws Exception {
        int max = config.settings().maxMessageSize;
        int spins = config.getWriteSpinCount();
        while (spins > 0) {
            Object msg = in.current();
            if (msg == null) {
                clearOpWrite();
                return;
            }
            if (!(msg instanceof ByteBuf)) {
                in.remove(new UnsupportedOperationException("UDT message mode carries ByteBufs, not " + msg.getClass().getName()));
                continue;
            }
            ByteBuf buf = (ByteBuf) msg;
            if (!buf.isReadable()) {
                in.remove();
                continue;
            }
            if (buf.readableBytes() > max) {
                in.remove(new IllegalArgumentException("UDT message of " + buf.readableBytes()
                        + " bytes exceeds MAX_MESSAGE_SIZE (" + max + ")"));
                continue;
            }
            int sent = doWriteBytes(buf);
            if (sent == 0) {
                incompleteWrite(true);
                return;
            }
            in.progress(sent);
            in.remove();
            spins--;
        }
        incompleteWrite(false);
    }

    @Override
    protected int doWriteBytes(ByteBuf buf) throws Exception {
        return writer.write(buf, alloc());
    }

    // ------------------------------------------------------------------ lost readiness events

    private static final int UDT_EPOLL_IN = 0x1;
    private static final int UDT_EPOLL_OUT = 0x4;
    private LostEventCheck lostEvents;

    /** A receive emptied UDT's buffer or a send filled it: see {@link LostEventCheck}. */
    private void armLostEventCheck() {
        if (lostEvents == null) {
            lostEvents = new LostEventCheck(eventLoop(), this::recoverLostEvents);
        }
        lostEvents.arm();
    }

    /**
     * Asks UDT what the socket is ({@code UDT_EVENT}, computed from its buffers rather than from its epoll
     * sets) and reads or flushes where the channel waits for an event that state should have raised.
     */
    private void recoverLostEvents() {
        SelectionKey key = selectionKey();
        if (!isOpen() || !connected || key == null || !key.isValid()) {
            return;
        }
        int state;
        try {
            state = socket.getOption(OptionUDT.UDT_EVENT);
        } catch (ExceptionUDT | RuntimeException gone) {
            return;
        }
        int interest = key.interestOps();
        if ((state & UDT_EPOLL_OUT) != 0 && (interest & SelectionKey.OP_WRITE) != 0) {
            ((NioUnsafe) unsafe()).forceFlush();
        }
        if ((state & UDT_EPOLL_IN) != 0 && (interest & SelectionKey.OP_READ) != 0 && isOpen()) {
            ((NioUnsafe) unsafe()).read();
        }
    }

    @Override
    protected long doWriteFileRegion(FileRegion region) throws Exception {
        long position = region.transferred();
        return region.transferTo(new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) throws IOException {
                return writer.write(src);
            }

            @Override
            public boolean isOpen() {
                return udt.isOpen();
            }

            @Override
            public void close() {
            }
        }, position);
    }

    // ------------------------------------------------------------------ half-close

    @Override
    public boolean isInputShutdown() {
        return inputShutdown || !isActive();
    }

    @Override
    protected boolean isInputShutdown0() {
        return isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return outputShutdown || !isActive();
    }

    @Override
    public boolean isShutdown() {
        return isInputShutdown() && isOutputShutdown();
    }

    @Override
    public ChannelFuture shutdownInput() {
        return shutdownInput(newPromise());
    }

    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
        runOnLoop(() -> {
            if (!connected) {
                promise.setFailure(new java.nio.channels.NotYetConnectedException());
                return;
            }
            // UDT cannot stop its peer from sending; Ferry stops reading and drops what still arrives.
            inputShutdown = true;
            promise.setSuccess();
        });
        return promise;
    }

    @Override
    public ChannelFuture shutdownOutput() {
        return shutdownOutput(newPromise());
    }

    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
        runOnLoop(() -> {
            if (!connected) {
                promise.setFailure(new java.nio.channels.NotYetConnectedException());
            } else {
                ((AbstractUnsafe) unsafe()).shutdownOutput(promise);
            }
        });
        return promise;
    }

    @Override
    public ChannelFuture shutdown() {
        return shutdown(newPromise());
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
        return io.ferry.transport.spi.AbstractStreamChannel.shutdownBoth(this, promise);
    }

    @Override
    protected void doShutdownOutput() throws Exception {
        if (mode != UdtSettings.StreamMode.FRAMED) {
            throw new UnsupportedOperationException("UDT " + (mode == UdtSettings.StreamMode.RAW ? "raw stream" : "message mode")
                    + " cannot half-close: UDT has no way to end one direction of a connection. The default framed"
                    + " stream mode (Ferry at both ends) can; otherwise close the channel");
        }
        outputShutdown = true;
        sendFinFromLoop();
    }

    private void sendFinFromLoop() {
        if (!isOpen()) {
            return;
        }
        boolean sent;
        try {
            sent = trySendFin();
        } catch (IOException e) {
            close();
            return;
        }
        if (!sent) {
            eventLoop().schedule(this::sendFinFromLoop, 1, TimeUnit.MILLISECONDS);
        }
    }

    /** Sends the end-of-stream frame once; false if UDT's send buffer has no room yet. */
    boolean trySendFin() throws IOException {
        return writer.trySendFin();
    }

    private void runOnLoop(Runnable task) {
        EventLoop loop = eventLoop();
        if (loop.inEventLoop()) {
            task.run();
        } else {
            loop.execute(task);
        }
    }

    // ------------------------------------------------------------------ close

    /** Closes at once: unsent data is dropped and the peer sees a reset, not an end of stream. */
    ChannelFuture abort() {
        aborting = true;
        return close();
    }

    @Override
    protected AbstractNioUnsafe newUnsafe() {
        return new UdtUnsafe();
    }

    private final class UdtUnsafe extends NioByteUnsafe {
        /**
         * A graceful close first lets the channel's own buffer drain into UDT, then ends the stream and
         * lets UDT deliver what it holds (see {@link #prepareToClose()}); the promises of every close
         * call complete when that is over, failed with {@link UndeliveredDataException} if the linger
         * ran out or the connection broke first.
         */
        @Override
        public void close(ChannelPromise promise) {
            if (closing != null) {
                // Netty's own void-promise closes (a failed read, say) are not a user's: they close now
                if (promise.isVoid() || !closing.waiting.join(promise)) {
                    super.close(promise);
                }
                return;
            }
            Duration linger = config.lingerDuration();
            boolean graceful = !aborting && connected && isOpen() && socket.status() == StatusUDT.CONNECTED && !linger.isZero();
            closing = new UdtLinger(UdtSocketChannel.this, promise, linger);
            if (!graceful) {
                closing.closeAndComplete();
                return;
            }
            flush(); // what was written but not flushed belongs to the stream too
            closing.drainThenClose();
        }

        void closeNow(ChannelPromise promise) {
            super.close(promise);
        }

        /**
         * The close itself runs on the event loop once UDT has every byte acknowledged or the linger
         * time is up, checked every millisecond without blocking the loop.
         */
        @Override
        protected Executor prepareToClose() {
            if (aborting || !connected || !isOpen() || socket.status() != StatusUDT.CONNECTED || closing == null
                    || closing.linger.isZero()) {
                return null;
            }
            removeAndSubmit(readOps); // like a closed TCP socket, nothing more is read
            long deadline = closing.deadlineNanos;
            UdtLinger c = closing;
            return closeTask -> c.lingerThen(deadline, closeTask);
        }
    }

    /** The socket's close drops what UDT still holds (LINGER zero): an abort, or a linger that gave up. */
    void dropUnsent() throws ExceptionUDT {
        socket.setOption(OptionUDT.UDT_LINGER, LingerUDT.LINGER_ZERO);
    }

    @Override
    protected void doClose() throws Exception {
        try {
            if (connected) {
                monitor.read(); // the monitor's last figures, while the socket still has them
            }
            if (aborting || !connected) {
                dropUnsent();
            }
        } catch (ExceptionUDT | RuntimeException ignore) {
            // closing regardless
        } finally {
            UdtRuntime.closeAndRelease(udt, released);
        }
    }

    // ------------------------------------------------------------------ rate control and statistics

    /** The rate control's state, for logs and tests; null unless {@code ferry} paces this channel. */
    String pacingState() {
        return pacer == null ? null : pacer.toString();
    }

    /** A snapshot from UDT's performance monitor; after the close, its last figures. */
    TransportStatistics statistics(String transport) {
        TransportStatistics.Builder b = TransportStatistics.builder(transport, mode.name().toLowerCase(java.util.Locale.ROOT));
        ByteCountingHandler counter = ByteCountingHandler.of(this);
        if (counter != null) {
            b.bytesSent(counter.bytesSent()).bytesReceived(counter.bytesReceived());
        }
        return monitor.addTo(b, isOpen()).build();
    }

    private static InetSocketAddress remoteOf(SocketUDT socket) {
        try {
            return socket.getRemoteSocketAddress();
        } catch (ExceptionUDT e) {
            return null;
        }
    }
}
