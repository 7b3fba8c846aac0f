package io.ferry.cli;

import io.ferry.cli.options.OptionValues;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.Transport;
import io.ferry.transport.TransportUri;
import io.ferry.transport.Transports;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

import java.util.List;

/** Checks a command's URI and {@code --opt}s against the installed transports, as usage errors naming the problem. */
final class TransportArgs {

    private TransportArgs() {
    }

    /** The parsed URI; a malformed one or an unknown scheme is a usage error. */
    static TransportUri uri(CommandSpec spec, Transports ferry, String what, String uri, boolean listen) {
        TransportUri parsed;
        try {
            parsed = TransportUri.parse(uri, listen);
            ferry.transport(parsed.scheme());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), what + ": " + e.getMessage(), e);
        }
        return parsed;
    }

    /**
     * {@code options} for a striped session of {@code streams} connections: {@code ferry} always stripes
     * (one stream by default), so that every receiver accepts any sender's number of streams.
     */
    static ChannelOptions striped(CommandSpec spec, ChannelOptions options, int streams) {
        try {
            return options.toBuilder().set(io.ferry.transport.FerryChannelOption.STREAMS, streams).build();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--streams: " + e.getMessage(), e);
        }
    }

    /** The {@code --opt name=value} list as typed options for the URI's transport. */
    static ChannelOptions options(CommandSpec spec, Transports ferry, TransportUri uri, List<String> opts) {
        if (opts == null || opts.isEmpty()) {
            return ChannelOptions.empty();
        }
        Transport transport = ferry.transport(uri.scheme());
        try {
            return OptionValues.parse(transport, opts);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }
}
