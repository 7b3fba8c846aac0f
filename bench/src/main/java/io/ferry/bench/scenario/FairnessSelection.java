package io.ferry.bench.scenario;

import java.time.Duration;
import java.util.List;

/**
 * What the fairness study runs: which scavengers, base RTTs, scenario kinds, competing TCP congestion
 * controls and TCP flow counts, and how long each phase lasts. Empty lists take the profile's defaults.
 *
 * @param scavengers  {@code ferry} (uTP with its default controller), {@code ferry:NAME} (uTP with
 *                    controller NAME, e.g. {@code ferry:ledbat++}), {@code udt} or {@code udt:NAME}
 *                    (Ferry's UDT, e.g. {@code udt:udt} for UDT4's own control) or {@code libtorrent}
 * @param baseRttsMs  base round-trip times of the emulated link, in milliseconds
 * @param kinds       scenario kinds by id: alone, tcp-joins, scavenger-joins, together, latecomer
 * @param ccs         the competing TCP flows' congestion controls (reno, cubic, bbr)
 * @param tcpFlows    how many TCP flows compete (1 and 4 in the study)
 * @param lossRates   random loss of the bottleneck link in each direction, 0..1 (0 in the study)
 * @param queuesMs    the bottleneck's drop-tail queue in milliseconds at its rate (150 in the study; a queue
 *                    below the scavenger's target shows how it behaves when the delay signal cannot work)
 */
record FairnessSelection(List<String> scavengers, List<Integer> baseRttsMs, List<String> kinds, List<String> ccs,
                         List<Integer> tcpFlows, List<Double> lossRates, List<Double> queuesMs) {

    static final FairnessSelection DEFAULTS = new FairnessSelection(List.of(), List.of(), List.of(), List.of(), List.of(),
            List.of(), List.of());

    /** The study's queue, in milliseconds at the bottleneck rate. */
    static final double DEFAULT_QUEUE_MS = 150;

    FairnessSelection {
        scavengers = List.copyOf(scavengers);
        baseRttsMs = List.copyOf(baseRttsMs);
        kinds = List.copyOf(kinds);
        ccs = List.copyOf(ccs);
        tcpFlows = List.copyOf(tcpFlows);
        lossRates = List.copyOf(lossRates);
        queuesMs = List.copyOf(queuesMs);
        for (double loss : lossRates) {
            if (!(loss >= 0 && loss < 1)) {
                throw new IllegalArgumentException("loss rate must be in [0, 1), got " + loss);
            }
        }
        for (double q : queuesMs) {
            if (!(q > 0 && q <= 10_000)) {
                throw new IllegalArgumentException("queue must be in (0, 10000] ms, got " + q);
            }
        }
    }

    List<Double> lossRatesOr() {
        return orElse(lossRates, List.of(0.0));
    }

    List<Double> queuesMsOr() {
        return orElse(queuesMs, List.of(DEFAULT_QUEUE_MS));
    }

    List<String> scavengersOr(StudyContext ctx) {
        return orElse(scavengers, ctx.pick(List.of("ferry", "libtorrent"), List.of("ferry", "libtorrent"), List.of("ferry", "libtorrent")));
    }

    List<Integer> baseRttsOr(StudyContext ctx) {
        return orElse(baseRttsMs, ctx.pick(List.of(20), List.of(20, 100), List.of(20, 100)));
    }

    List<FairnessScenario.Kind> kindsOr(StudyContext ctx) {
        if (kinds.isEmpty()) {
            return ctx.pick(List.of(FairnessScenario.Kind.ALONE, FairnessScenario.Kind.TCP_JOINS, FairnessScenario.Kind.LATECOMER),
                    List.of(FairnessScenario.Kind.values()), List.of(FairnessScenario.Kind.values()));
        }
        return kinds.stream().map(FairnessScenario.Kind::byId).toList();
    }

    List<String> ccsOr(StudyContext ctx) {
        return orElse(ccs, ctx.pick(List.of("cubic"), List.of("reno", "cubic", "bbr"), List.of("reno", "cubic", "bbr")));
    }

    List<Integer> tcpFlowsOr(StudyContext ctx) {
        return orElse(tcpFlows, ctx.pick(List.of(1), List.of(1, 4), List.of(1, 4)));
    }

    /** How long the first flows run alone before the others join (and the measured part of the rest). */
    static Duration lead(StudyContext ctx) {
        return ctx.pick(Duration.ofSeconds(4), Duration.ofSeconds(10), Duration.ofSeconds(20));
    }

    /** How long the scenario runs after the joining flows started. */
    static Duration measured(StudyContext ctx) {
        return ctx.pick(Duration.ofSeconds(6), Duration.ofSeconds(20), Duration.ofSeconds(40));
    }

    private static <T> List<T> orElse(List<T> chosen, List<T> byDefault) {
        return chosen.isEmpty() ? byDefault : chosen;
    }
}
