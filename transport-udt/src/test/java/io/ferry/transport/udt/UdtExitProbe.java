package io.ferry.transport.udt;

import io.ferry.transport.Transports;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Run in a child JVM by the tests. {@code transfer}: moves 1 MiB over UDT, closes everything, lists
 * the native UDT libraries the process maps and returns from main, so the JVM must exit by itself.
 * {@code vanish PORT}: a peer that ends its side, reads a reply and is then killed.
 */
public final class UdtExitProbe {

    private UdtExitProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("vanish")) {
            vanish(Integer.parseInt(args[1]));
            return;
        }
        Transports ferry = Transports.create();
        Received received = new Received(1 << 20);
        Channel server = ferry.listen("udt://127.0.0.1:0", received).sync().channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        Channel client = ferry.connect("udt://127.0.0.1:" + port, new ChannelInboundHandlerAdapter()).sync().channel();
        client.writeAndFlush(Unpooled.wrappedBuffer(new byte[1 << 20])).sync();
        received.all.get(30, TimeUnit.SECONDS);
        client.close().sync();
        server.close().sync();
        ferry.close();
        System.out.println("transferred " + received.all.get().length + " bytes");
        System.out.println("native UDT libraries mapped: " + nativeUdtLibraries());
    }

    /**
     * Connects to {@code port}, ends its side at once, reads the peer's 64 bytes, says so a moment later
     * (UDT acknowledges every 10 ms) and waits to be killed: a peer that vanishes without a word.
     */
    private static void vanish(int port) throws Exception {
        Transports ferry = Transports.create();
        Received received = new Received(64);
        Channel client = ferry.connect("udt://127.0.0.1:" + port, received,
                io.ferry.transport.ChannelOptions.builder().set(io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE, true).build()).sync().channel();
        client.writeAndFlush(Unpooled.wrappedBuffer(new byte[10])).sync();
        ((io.netty.channel.socket.DuplexChannel) client).shutdownOutput().sync();
        received.all.get(30, TimeUnit.SECONDS);
        Thread.sleep(300);
        System.out.println("READ 64");
        System.out.flush();
        Thread.sleep(60_000);
    }

    /** Mapped files of this process that look like a UDT native library (barchart's, libudt), or "none". */
    static String nativeUdtLibraries() throws java.io.IOException {
        java.util.Set<String> found = new java.util.TreeSet<>();
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/maps"))) {
            String lower = line.toLowerCase(java.util.Locale.ROOT);
            if (lower.contains("udt") && (lower.contains(".so") || lower.contains("barchart"))) {
                found.add(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return found.isEmpty() ? "none" : String.join(", ", found);
    }
}
