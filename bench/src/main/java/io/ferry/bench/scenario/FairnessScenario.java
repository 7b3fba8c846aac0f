package io.ferry.bench.scenario;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * One fairness scenario: what starts first, what joins, over which base RTT.
 *
 * @param kind       the shape of the scenario
 * @param scavenger  the scavenger's spec ({@code ferry}, {@code ferry:NAME}, {@code libtorrent})
 * @param cc         the competing TCP flows' congestion control, or null when there are none
 * @param tcpFlows   how many TCP flows compete (0 for alone and latecomer)
 * @param baseRttMs  the link's base round-trip time
 */
record FairnessScenario(Kind kind, String scavenger, String cc, int tcpFlows, int baseRttMs) {

    /** The shapes of the study. */
    enum Kind {
        /** The scavenger alone: link use and queuing delay. */
        ALONE("alone"),
        /** TCP joins an established scavenger: its share afterwards and the time it takes to yield. */
        TCP_JOINS("tcp-joins"),
        /** The scavenger joins established TCP. */
        SCAVENGER_JOINS("scavenger-joins"),
        /** Everything starts at once. */
        TOGETHER("together"),
        /** A second scavenger flow joins an established one: Jain's index over the shared period. */
        LATECOMER("latecomer");

        private final String id;

        Kind(String id) {
            this.id = id;
        }

        String id() {
            return id;
        }

        boolean hasTcp() {
            return this == TCP_JOINS || this == SCAVENGER_JOINS || this == TOGETHER;
        }

        static Kind byId(String id) {
            for (Kind k : values()) {
                if (k.id.equals(id)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("unknown fairness scenario '" + id + "'; choose from "
                    + Arrays.stream(values()).map(Kind::id).collect(Collectors.joining(", ")));
        }
    }

    /** A readable name, e.g. {@code ferry, 1 cubic joins} or {@code libtorrent latecomer}. */
    String name() {
        String tcp = tcpFlows + " " + cc;
        return switch (kind) {
            case ALONE -> scavenger + " alone";
            case TCP_JOINS -> tcp + " joins " + scavenger;
            case SCAVENGER_JOINS -> scavenger + " joins " + tcp;
            case TOGETHER -> scavenger + " with " + tcp;
            case LATECOMER -> scavenger + " joins " + scavenger;
        };
    }

    /** A file-name-safe id including the RTT. */
    String fileId() {
        return ("fairness-" + baseRttMs + "ms-" + name()).replace("++", "pp").replaceAll("[^A-Za-z0-9]+", "-").toLowerCase();
    }
}
