package io.ferry.bench.scenario;

import io.ferry.bench.transfer.Transfer;
import io.ferry.transport.ChannelOptions;
import io.ferry.transport.FerryChannelOption;
import io.ferry.transport.ledbat.cc.CongestionControls;
import io.ferry.transport.tcp.CongestionControlAlgorithms;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A congestion control on a transport: {@code tcp:cubic} is the kernel's CUBIC on Ferry's {@code tcp://}
 * (set with {@code CONGESTION_CONTROL}, which reaches {@code TCP_CONGESTION}), {@code utp:cubic} Ferry's
 * user-space CUBIC inside the uTP core.
 *
 * @param transport the URI scheme, {@code tcp} or {@code utp}
 * @param cc        the {@code CONGESTION_CONTROL} value
 */
record CcSpec(String transport, String cc) {

    /** Kernel algorithms and the user-space ones, kernel first, as study 5 lists them. */
    static final List<CcSpec> ALL = List.of(new CcSpec("tcp", "reno"), new CcSpec("tcp", "cubic"), new CcSpec("tcp", "bbr"),
            new CcSpec("utp", "newreno"), new CcSpec("utp", "cubic"), new CcSpec("utp", "highspeed"), new CcSpec("utp", "vegas"),
            new CcSpec("utp", "westwood+"), new CcSpec("utp", "bbr"), new CcSpec("utp", "ledbat"));

    /** {@code tcp:CC} or {@code utp:CC}. */
    static CcSpec parse(String spec) {
        int colon = spec.indexOf(':');
        if (colon <= 0 || colon == spec.length() - 1) {
            throw new IllegalArgumentException("'" + spec + "' is not TRANSPORT:CC, e.g. tcp:cubic or utp:westwood+");
        }
        return new CcSpec(spec.substring(0, colon), spec.substring(colon + 1));
    }

    /**
     * What a selection names: {@code TRANSPORT:CC} as it is, a bare name every row of {@link #ALL} with that
     * algorithm ({@code cubic}: the kernel's and Ferry's); an empty selection is {@code byDefault}.
     */
    static List<CcSpec> select(List<String> names, List<CcSpec> byDefault) {
        if (names.isEmpty()) {
            return byDefault;
        }
        List<CcSpec> out = new ArrayList<>();
        for (String name : names) {
            if (name.contains(":")) {
                out.add(parse(name));
                continue;
            }
            List<CcSpec> matching = ALL.stream().filter(s -> s.cc().equals(name)).toList();
            if (matching.isEmpty()) {
                throw new IllegalArgumentException("unknown algorithm '" + name + "'; use TRANSPORT:CC or one of "
                        + ALL.stream().map(CcSpec::cc).distinct().toList());
            }
            out.addAll(matching);
        }
        return out.stream().distinct().toList();
    }

    /** Why this row cannot run here, or empty. */
    Optional<String> missing(TransportCatalog transports) {
        if (!transports.installed(transport)) {
            return Optional.of("transport " + transport + " not installed");
        }
        if (transport.equals("tcp")) {
            List<String> kernel = CongestionControlAlgorithms.available();
            if (!kernel.isEmpty() && !kernel.contains(cc)) {
                return Optional.of("the kernel offers no " + cc + " (it has " + String.join(", ", kernel) + ")");
            }
        } else if (transport.equals("utp") && !CongestionControls.isRegistered(cc)) {
            return Optional.of("uTP has no controller " + cc + " (known: " + CongestionControls.names() + ")");
        }
        return Optional.empty();
    }

    /** Options selecting the algorithm, for both ends (on uTP only the sender's matters). */
    ChannelOptions options() {
        return ChannelOptions.builder().set(FerryChannelOption.CONGESTION_CONTROL, cc).build();
    }

    Transfer transfer() {
        return Transfer.of(transport).withOptions(options());
    }

    /** {@code tcp reno}, {@code utp westwood+}. */
    String label() {
        return transport + " " + cc;
    }
}
