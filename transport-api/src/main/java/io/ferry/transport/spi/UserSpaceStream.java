package io.ferry.transport.spi;

/**
 * Marks a Ferry connection that is a {@link io.netty.channel.socket.SocketChannel} in shape but not a
 * kernel socket (uTP, UDT, striped): the bytes written to it are moved by Ferry or a user-space library,
 * so a {@link io.netty.channel.FileRegion} written to it is read through the JVM a chunk at a time
 * rather than sent by the kernel with {@code sendfile}. See {@link io.ferry.transport.FerryChannels#isKernelSocket}.
 */
public interface UserSpaceStream {
}
