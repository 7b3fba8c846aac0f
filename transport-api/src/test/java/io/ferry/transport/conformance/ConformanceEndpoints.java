package io.ferry.transport.conformance;

import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transports;
import io.netty.channel.Channel;

import java.util.function.Consumer;

/**
 * What the conformance suite's parts (the interfaces {@link TransportConformanceTest} implements) need
 * from it: a listener and a client connected to it over the transport under test, with the suite's options.
 */
interface ConformanceEndpoints {

    /** Listens on loopback; {@code childSetup} runs for every accepted connection. */
    Channel listenForTest(Consumer<Channel> childSetup) throws InterruptedException;

    /** Connects to {@code server}; {@code setup} runs on the new channel before it is active. */
    Channel connectForTest(Channel server, Consumer<Channel> setup) throws InterruptedException;

    /** The suite's own {@link Transports}. */
    Transports transportsForTest();

    /** A new {@link Transports} of the kind the suite uses (the caller closes it). */
    Transports newTransportsForTest();

    /** The URI of loopback port {@code port} in the scheme under test. */
    String uriForTest(int port);

    /** The options every connection of the suite uses. */
    ChannelOptions optionsForTest();

    /** Bytes a bulk transfer of the suite moves (less for a transport far slower on loopback than the others). */
    int bulkBytesForTest();
}
