package io.ferry.transport.udt;

import com.barchart.udt.nio.SelectorProviderUDT;

import java.io.IOException;
import java.net.ProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;

/**
 * What Ferry's UDT event loops are built with: barchart's provider for one socket type, except that its
 * selectors are {@link UdtSelector}s. Channels still come from (and belong to) barchart's provider.
 */
final class UdtSelectorProvider extends SelectorProvider {

    static final UdtSelectorProvider STREAM = new UdtSelectorProvider(SelectorProviderUDT.STREAM);
    static final UdtSelectorProvider DATAGRAM = new UdtSelectorProvider(SelectorProviderUDT.DATAGRAM);

    private final SelectorProviderUDT udt;

    private UdtSelectorProvider(SelectorProviderUDT udt) {
        this.udt = udt;
    }

    @Override
    public AbstractSelector openSelector() throws IOException {
        return new UdtSelector(udt);
    }

    @Override
    public DatagramChannel openDatagramChannel() throws IOException {
        return udt.openDatagramChannel();
    }

    @Override
    public DatagramChannel openDatagramChannel(ProtocolFamily family) throws IOException {
        return udt.openDatagramChannel(family);
    }

    @Override
    public Pipe openPipe() throws IOException {
        return udt.openPipe();
    }

    @Override
    public ServerSocketChannel openServerSocketChannel() throws IOException {
        return udt.openServerSocketChannel();
    }

    @Override
    public SocketChannel openSocketChannel() throws IOException {
        return udt.openSocketChannel();
    }
}
