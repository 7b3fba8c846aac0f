/**
 * Ferry connections and listeners for engines that bring their own event loops (Vert.x, for one): a
 * hosted channel registers on any loop of any group and carries a connection of a Ferry transport that
 * stays on the transport's own loops. See {@link io.ferry.transport.hosted.HostedChannels}.
 */
package io.ferry.transport.hosted;
