package io.ferry.transport.udp.engine;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sockets of one listener bound to one address with {@code SO_REUSEPORT}, and which of them owns
 * each connection. The kernel spreads peers over the group by a hash of their addresses, but the spread
 * changes whenever the group does (a socket of the group closes, or another process's socket joins it):
 * from then on a peer's datagrams reach a socket that does not know its connection. Each socket
 * registers the keys it routes by here; a socket that cannot route a datagram asks the group and hands
 * the datagram to the owner's event loop ({@link EngineEndpoint#handOver}), so a remap costs a hop, not
 * the connection. Claiming a key is atomic: two sockets that receive one peer's setup at once accept it
 * once. Only misses read the group: routing a datagram to a socket's own connection never touches it.
 *
 * <p>Not API: public for the transports built on the engine.
 *
 * @param <K> what a wire routes by (UDT: socket ids and its peers' address and id)
 */
public final class SocketGroup<K> {

    private final ConcurrentHashMap<K, EngineEndpoint<?>> owners = new ConcurrentHashMap<>();
    private final AtomicLong handedOver = new AtomicLong();

    /**
     * Makes {@code endpoint} the owner of {@code key} unless another socket owns it.
     *
     * @return the socket that owned it already, or null if {@code endpoint} does now
     */
    public EngineEndpoint<?> claim(K key, EngineEndpoint<?> endpoint) {
        return owners.putIfAbsent(key, endpoint);
    }

    /** {@code endpoint} no longer routes {@code key} (its connection is over). */
    public void release(K key, EngineEndpoint<?> endpoint) {
        owners.remove(key, endpoint);
    }

    /** The socket that routes {@code key}, or null. */
    public EngineEndpoint<?> owner(K key) {
        return owners.get(key);
    }

    /** Datagrams one socket of the group received for a connection of another (the kernel's spread changed). */
    public long handedOver() {
        return handedOver.get();
    }

    void countHandOver() {
        handedOver.incrementAndGet();
    }
}
