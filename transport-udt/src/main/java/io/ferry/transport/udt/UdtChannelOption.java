package io.ferry.transport.udt;

import io.netty.channel.ChannelOption;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * UDT's own options. Each socket option is written to the native UDT socket before it binds or
 * connects (accepted connections inherit the listener's) and {@code channel.config().getOption(...)}
 * reads the value back from the native socket. Defaults are in {@link UdtSettings}.
 */
public final class UdtChannelOption<T> extends ChannelOption<T> {

    /** UDT's protocol send buffer, bytes ({@code UDT_SNDBUF}); UDT keeps it in whole packets of MSS − 28 bytes. */
    public static final UdtChannelOption<Integer> UDT_SEND_BUFFER = new UdtChannelOption<>("UDT_SEND_BUFFER");

    /** UDT's protocol receive buffer, bytes ({@code UDT_RCVBUF}); whole packets, and never above the flow window. */
    public static final UdtChannelOption<Integer> UDT_RECEIVE_BUFFER = new UdtChannelOption<>("UDT_RECEIVE_BUFFER");

    /** The UDP socket's send buffer, bytes ({@code UDP_SNDBUF}); the kernel caps it at {@code net.core.wmem_max}. */
    public static final UdtChannelOption<Integer> UDP_SEND_BUFFER = new UdtChannelOption<>("UDP_SEND_BUFFER");

    /** The UDP socket's receive buffer, bytes ({@code UDP_RCVBUF}); the kernel caps it at {@code net.core.rmem_max}. */
    public static final UdtChannelOption<Integer> UDP_RECEIVE_BUFFER = new UdtChannelOption<>("UDP_RECEIVE_BUFFER");

    /** Maximum segment size: the largest UDP datagram UDT sends including IP and UDP headers ({@code UDT_MSS}). */
    public static final UdtChannelOption<Integer> MSS = new UdtChannelOption<>("MSS");

    /** Flow-control window: packets in flight at most ({@code UDT_FC}). */
    public static final UdtChannelOption<Integer> FLOW_WINDOW = new UdtChannelOption<>("FLOW_WINDOW");

    /** Upper bound of the sending rate, bytes per second, or −1 for none ({@code UDT_MAXBW}). */
    public static final UdtChannelOption<Long> MAX_BANDWIDTH = new UdtChannelOption<>("MAX_BANDWIDTH");

    /**
     * UDT message mode ({@code SOCK_DGRAM}) instead of stream mode: every written buffer arrives as one
     * buffer, whole, in order. Messages are limited to {@link #MAX_MESSAGE_SIZE}; no half-close.
     */
    public static final UdtChannelOption<Boolean> MESSAGE_MODE = new UdtChannelOption<>("MESSAGE_MODE");

    /** Largest message in message mode, bytes (default 64 KiB); reads use buffers of this size. */
    public static final UdtChannelOption<Integer> MAX_MESSAGE_SIZE = new UdtChannelOption<>("MAX_MESSAGE_SIZE");

    /**
     * A plain UDT byte stream, without Ferry's end-of-stream framing: talks to any UDT4 peer (C++
     * {@code libudt}, raw barchart-udt), but cannot half-close. Both ends must agree.
     */
    public static final UdtChannelOption<Boolean> RAW_STREAM = new UdtChannelOption<>("RAW_STREAM");

    /**
     * Rendezvous connect ({@code UDT_RENDEZVOUS}): both peers connect to each other at the same time, from
     * the ports they announced (set {@link #BIND_ADDRESS}), which lets two hosts behind NATs meet.
     */
    public static final UdtChannelOption<Boolean> RENDEZVOUS = new UdtChannelOption<>("RENDEZVOUS");

    /** The local address a client connection binds before it connects (required for rendezvous). */
    public static final UdtChannelOption<InetSocketAddress> BIND_ADDRESS = new UdtChannelOption<>("BIND_ADDRESS");

    @SuppressWarnings("deprecation") // how Netty itself defines typed option families
    private UdtChannelOption(String name) {
        super("udt." + name);
    }
}
