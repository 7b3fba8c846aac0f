package io.ferry.transport.udt;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * barchart-udt 2.3.0 opens {@code AF_INET} sockets and converts only IPv4 addresses (its JNI fails an IPv6
 * one with "can not X_ConvertInetSocketAddressToSockaddr"). This gives UDT the IPv4 address it can use, or a
 * clear error: the IPv6 wildcard — what {@code bind(port)} means where the JVM has IPv6 — is IPv4's wildcard.
 */
final class UdtAddresses {

    static InetSocketAddress ipv4(SocketAddress address, String use) {
        if (!(address instanceof InetSocketAddress)) {
            throw new IllegalArgumentException("udt:// " + use + " takes an InetSocketAddress, got " + address);
        }
        InetSocketAddress inet = (InetSocketAddress) address;
        if (inet.isUnresolved()) {
            throw new IllegalArgumentException("udt:// cannot " + use + " unresolved address " + inet);
        }
        InetAddress ip = inet.getAddress();
        if (ip instanceof Inet4Address) {
            return inet;
        }
        if (ip.isAnyLocalAddress()) {
            return new InetSocketAddress("0.0.0.0", inet.getPort());
        }
        throw new IllegalArgumentException("udt:// is IPv4 only (barchart-udt opens AF_INET sockets): cannot " + use + " "
                + inet + "; use an IPv4 address, or utp:// or tcp:// for IPv6");
    }

    private UdtAddresses() {
    }
}
