package io.ferry.transport.udp;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;

/**
 * The UDP socket implementation under Ferry's user-space transports (uTP, UDT): Netty's native epoll
 * datagram channel on Linux, Java NIO elsewhere or when {@code -D<prefix>.native=false}
 * ({@code ferry.utp} for uTP, {@code ferry.udt} for UDT).
 *
 * <p>With epoll a listener binds one socket per event loop with {@code SO_REUSEPORT}, so that the
 * kernel spreads its connections over the loops by the hash of their addresses and ports, as TCP's
 * accepted children are spread; {@code -D<prefix>.reusePort=false} keeps one socket.
 */
public final class UdpIo {

    /** Property suffix that, set to {@code false}, forces Java NIO. */
    public static final String NATIVE = ".native";
    /** Property suffix that, set to {@code false}, keeps a listener on one socket and one event loop. */
    public static final String REUSE_PORT = ".reusePort";
    /** Property suffix that, set to {@code false}, sends every packet as its own datagram (no UDP GSO). */
    public static final String GSO = ".gso";
    /** Property suffix that, set to {@code false}, receives one datagram per read (no {@code UDP_GRO}). */
    public static final String GRO = ".gro";
    /**
     * Reads one read loop makes before the event loop turns to its other work. Set on the allocator itself:
     * Netty keeps {@code MAX_MESSAGES_PER_READ} in the allocator, and a {@code FixedRecvByteBufAllocator}
     * set after it starts again from one read per loop (which is how the engine ran until 2026-12-01).
     */
    public static final int READS_PER_LOOP = 64;
    /** Largest UDP payload a coalesced ({@code UDP_GRO}) read can return. */
    public static final int COALESCED_READ_SIZE = 65_536;

    private final boolean epoll;
    private final boolean reusePort;
    private final boolean gso;
    private final boolean gro;

    private UdpIo(boolean epoll, String prefix) {
        this.epoll = epoll;
        this.reusePort = epoll && Boolean.parseBoolean(System.getProperty(prefix + REUSE_PORT, "true"));
        this.gso = epoll && EpollDatagramChannel.isSegmentedDatagramPacketSupported()
                && Boolean.parseBoolean(System.getProperty(prefix + GSO, "true"));
        this.gro = epoll && Boolean.parseBoolean(System.getProperty(prefix + GRO, "true"));
    }

    /**
     * Epoll where available and not disabled, NIO otherwise.
     *
     * @param prefix the system-property prefix that tunes it, {@code ferry.utp} or {@code ferry.udt}
     */
    public static UdpIo detect(String prefix) {
        return new UdpIo(Boolean.parseBoolean(System.getProperty(prefix + NATIVE, "true")) && Epoll.isAvailable(), prefix);
    }

    /** Java NIO. */
    public static UdpIo nio() {
        return new UdpIo(false, "ferry.udp");
    }

    /** {@code epoll} or {@code nio}. */
    public String name() {
        return epoll ? "epoll" : "nio";
    }

    /** How many sockets a listener binds when its transport has {@code loops} event loops. */
    public int listenerSockets(int loops) {
        return reusePort ? Math.max(1, loops) : 1;
    }

    /** Lets several sockets of this process bind one address (only when {@link #listenerSockets} is above one). */
    public void allowSharedPort(Bootstrap bootstrap) {
        if (reusePort) {
            bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
        }
    }

    /**
     * Whether a listener on the wildcard address learns the address each IPv4 datagram was sent to
     * ({@code IP_RECVORIGDSTADDR}; IPv6 peers are answered as the kernel routes them), so that it can
     * answer from the address its peer dialed.
     */
    public boolean learnsDialedAddress() {
        return epoll;
    }

    /** A listener socket on the wildcard address: learns dialed addresses, and lets per-address sockets bind its port. */
    public void configureWildcardListener(Bootstrap bootstrap) {
        if (epoll) {
            bootstrap.option(EpollChannelOption.IP_RECVORIGDSTADDR, true).option(ChannelOption.SO_REUSEADDR, true);
        }
    }

    /** A listener socket bound to one dialed address beside the wildcard ones on the same port. */
    public void configureAddressSocket(Bootstrap bootstrap) {
        bootstrap.option(ChannelOption.SO_REUSEADDR, true);
        if (reusePort) {
            bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
        }
    }

    /** Whether runs of packets to one peer leave as one UDP GSO send ({@link SegmentingSender}). */
    public boolean segmentedSends() {
        return gso;
    }

    /**
     * Sets how a socket reads: with {@code UDP_GRO} the kernel hands over a run of datagrams from one
     * peer (such as one GSO send) in one read of up to 64 KiB, split back into datagrams by Netty;
     * otherwise one datagram per read into a buffer of {@code packetSize} (at least 2 KiB). Up to
     * {@link #READS_PER_LOOP} reads a loop either way.
     */
    public void configureReads(Bootstrap bootstrap, int packetSize) {
        int size = gro ? COALESCED_READ_SIZE : Math.max(packetSize, 2048);
        if (gro) {
            bootstrap.option(EpollChannelOption.UDP_GRO, true);
        }
        bootstrap.option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(size).maxMessagesPerRead(READS_PER_LOOP));
    }

    /** What a socket does beyond plain datagrams, for {@code implementation} in statistics: "", "+gso", "+gro", "+gso+gro". */
    public String batching(boolean segmentingNow) {
        return (segmentingNow ? "+gso" : "") + (gro ? "+gro" : "");
    }

    public IoHandlerFactory newIoHandlerFactory() {
        return epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    public Class<? extends DatagramChannel> datagramChannelClass() {
        return epoll ? EpollDatagramChannel.class : NioDatagramChannel.class;
    }

    /**
     * Times a listener on port 0 tries another port when one it claimed was taken before its sockets bound
     * it: the claim's probe socket closes first, and a socket that binds port 0 meanwhile (anywhere on the
     * machine) may get the same port (a CI run of Netty's suite saw "Address already in use" so).
     */
    public static final int PORT_CLAIM_ATTEMPTS = 5;

    /**
     * SO_REUSEPORT, which a listener's sockets share their port with, lets any socket of the same user bind
     * a port another reuseport socket holds, and {@code bind(0)} even picks such a port (2 of 200 binds
     * here): the kernel would then split this listener's requests with another listener. A plain bind first
     * proves the address free, as TCP's bind does, and settles the port that 0 asks for; the listener's
     * sockets bind it right after.
     *
     * @param protocol the transport's name for the message, such as {@code uTP}
     */
    public static java.net.InetSocketAddress claimFreeAddress(java.net.InetSocketAddress local, String protocol) throws java.io.IOException {
        try (java.net.DatagramSocket probe = new java.net.DatagramSocket(null)) {
            probe.bind(local);
            return new java.net.InetSocketAddress(local.getAddress(), probe.getLocalPort());
        } catch (java.net.BindException e) {
            java.net.BindException named = new java.net.BindException(protocol + " cannot listen on " + local + ": " + e.getMessage());
            named.initCause(e);
            throw named;
        }
    }

    /** Whether a bind failed because another socket holds the address. */
    public static boolean isAddressTaken(Throwable cause) {
        return cause instanceof java.net.BindException
                || (cause != null && String.valueOf(cause.getMessage()).contains("Address already in use"));
    }
}
