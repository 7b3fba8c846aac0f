package io.ferry.transport.ledbat.bench;

import io.ferry.transport.Transports;
import io.ferry.transport.ledbat.channel.UtpServerChannel;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * How long a legitimate client takes to connect to a uTP listener while spoofed SYNs flood it from a
 * thousand loopback addresses at a set rate: a client dials every {@code --every} ms while the flood
 * lasts, and each one's time from dialling to connected is reported (median, worst, how many within
 * 1 s), with what the listener did with the flood. Unlike the hardening test it runs without the leak
 * detector and keeps the rate steady, as an attacker would.
 *
 * <pre>SynFlood [--rate 70000] [--seconds 5] [--every 250]</pre>
 */
public final class SynFlood {

    private SynFlood() {
    }

    /** The listener's children: they read and drop what arrives. */
    @io.netty.channel.ChannelHandler.Sharable
    private static final class Drop extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
            io.netty.util.ReferenceCountUtil.release(msg);
        }
    }

    public static void main(String[] args) throws Exception {
        int rate = 70_000;
        int seconds = 5;
        int everyMillis = 250;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--rate" -> rate = Integer.parseInt(args[i + 1]);
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                case "--every" -> everyMillis = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (--rate N --seconds N --every MS)");
            }
        }
        try (Transports ferry = Transports.create()) {
            Channel server = ferry.listen("utp://127.0.0.1:0", new Drop()).sync().channel();
            UtpServerChannel listener = (UtpServerChannel) server;
            InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), ((InetSocketAddress) server.localAddress()).getPort());
            List<DatagramChannel> spoofers = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                DatagramChannel ch = DatagramChannel.open();
                ch.setOption(StandardSocketOptions.SO_RCVBUF, 1 << 16);
                ch.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[]{127, 1, (byte) (i >> 8), (byte) (1 + (i & 0xFF))}), 0));
                ch.configureBlocking(false);
                spoofers.add(ch);
            }
            List<Double> connectMillis = Collections.synchronizedList(new ArrayList<>());
            List<ChannelFuture> dials = new ArrayList<>();
            SplittableRandom random = new SplittableRandom(2026);
            ByteBuffer syn = ByteBuffer.allocate(20);
            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(seconds);
            long nextDial = start + TimeUnit.MILLISECONDS.toNanos(everyMillis);
            long sent = 0;
            int next = 0;
            for (long now = start; now < end; now = System.nanoTime()) {
                long due = (now - start) * rate / 1_000_000_000L;
                while (sent < due) {
                    syn.clear();
                    syn.put((byte) 0x41).put((byte) 0).putShort((short) random.nextInt(1 << 16)).putInt(0).putInt(0)
                            .putInt(1 << 20).putShort((short) random.nextInt(1 << 16)).putShort((short) 0).flip();
                    spoofers.get(next++ % spoofers.size()).send(syn, target);
                    sent++;
                }
                if (now >= nextDial) {
                    nextDial += TimeUnit.MILLISECONDS.toNanos(everyMillis);
                    long dialed = System.nanoTime();
                    ChannelFuture f = ferry.connect("utp://127.0.0.1:" + target.getPort(), new ChannelInboundHandlerAdapter());
                    f.addListener(done -> {
                        if (done.isSuccess()) {
                            connectMillis.add((System.nanoTime() - dialed) / 1e6);
                        }
                    });
                    dials.add(f);
                }
                Thread.onSpinWait();
            }
            double floodSeconds = (System.nanoTime() - start) / 1e9;
            for (ChannelFuture f : dials) {
                f.await(30, TimeUnit.SECONDS);
                if (f.isSuccess()) {
                    f.channel().close().await(5, TimeUnit.SECONDS);
                }
            }
            List<Double> ms = new ArrayList<>(connectMillis);
            Collections.sort(ms);
            long within = ms.stream().filter(m -> m <= 1000).count();
            System.out.printf(Locale.ROOT, "flood %d SYNs in %.1f s (%.0f/s) from 1000 addresses; listener: %d answered from the SYN cache, %d evicted, %d expired, %d refused, %d dropped%n",
                    sent, floodSeconds, sent / floodSeconds, listener.synsAnsweredFromCache(), listener.halfOpenEvicted(), listener.halfOpenExpired(),
                    listener.synsRefused(), listener.synsDropped());
            System.out.printf(Locale.ROOT, "clients dialled %d, connected %d: median %.1f ms, worst %.1f ms, %d within 1 s%n",
                    dials.size(), ms.size(), ms.isEmpty() ? Double.NaN : ms.get(ms.size() / 2),
                    ms.isEmpty() ? Double.NaN : ms.get(ms.size() - 1), within);
            System.out.println("connect ms: " + ms.stream().map(m -> String.format(Locale.ROOT, "%.0f", m)).toList());
            for (DatagramChannel ch : spoofers) {
                ch.close();
            }
            server.close().sync();
        }
    }
}
