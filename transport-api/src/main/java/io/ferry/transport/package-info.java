/**
 * Ferry's user-facing API: {@link io.ferry.transport.Transports} turns a URI such as
 * {@code tcp://host:9000}, {@code udt://host:9000} or {@code utp://host:9000} into a Netty
 * {@link io.netty.channel.Channel}; {@link io.ferry.transport.ChannelOptions} and
 * {@link io.ferry.transport.FerryChannelOption} configure it; {@link io.ferry.transport.FerryChannels}
 * reads its {@link io.ferry.transport.TransportStatistics}, half-closes or aborts it.
 */
package io.ferry.transport;
