package io.ferry.cli.perf;

import io.ferry.cli.report.JsonText;

import java.util.List;

/**
 * {@code ferry perf --json}: the report as one JSON object, schema {@code ferry-perf/1}
 * (docs/cli-perf.md documents every field). A figure a transport or JVM does not give is {@code null}.
 */
final class PerfJson {

    static final String SCHEMA = "ferry-perf/1";

    private final StringBuilder out = new StringBuilder();

    private PerfJson() {
    }

    static String of(PerfReport r) {
        PerfJson j = new PerfJson();
        j.out.append('{');
        j.field("schema").string(SCHEMA).comma();
        j.field("server").out.append('{');
        j.field("host").string(r.host()).comma().field("port").out.append(r.port());
        j.out.append('}');
        j.comma().field("idle_rtt_ms").number(r.idleRttMillis()).comma();
        j.field("seconds").number(r.seconds()).comma();
        j.field("tests").out.append('[');
        for (int i = 0; i < r.bulk().size(); i++) {
            if (i > 0) {
                j.comma();
            }
            j.test(r.bulk().get(i));
        }
        j.out.append(']').append(',');
        j.field("fairness");
        if (r.fairness() == null) {
            j.out.append("null");
        } else {
            j.fairness(r.fairness());
        }
        j.comma().field("fairness_skipped").string(r.fairnessSkipped()).comma();
        j.field("verdict").strings(r.verdict());
        j.out.append('}');
        return j.out.toString();
    }

    private void test(BulkResult t) {
        out.append('{');
        field("transport").string(t.transport()).comma();
        field("direction").string(t.direction()).comma();
        field("seconds").number(t.seconds()).comma();
        field("bytes").out.append(t.bytes());
        comma().field("goodput_mbps").number(t.ok() ? t.goodputMbps() : Double.NaN).comma();
        field("per_second_mbps").numbers(t.perSecondMbps()).comma();
        field("rtt_idle_ms").number(t.rttIdleMillis()).comma();
        field("rtt_loaded_ms").number(t.rttLoadedMillis()).comma();
        field("transport_rtt_ms").number(t.sender().rttMillis()).comma();
        field("retransmissions").integer(t.sender().retransmissions()).comma();
        field("lost").integer(t.sender().lost()).comma();
        field("sender_cpu_s_per_gib").number(t.senderCpuPerGiB()).comma();
        field("receiver_cpu_s_per_gib").number(t.receiverCpuPerGiB()).comma();
        field("error").string(t.error());
        out.append('}');
    }

    private void fairness(FairnessResult f) {
        out.append('{');
        field("tcp_cc").string(f.tcpCc()).comma();
        field("tcp_alone_mbps").number(f.tcpAloneMbps()).comma();
        field("ledbat_alone_mbps").number(f.ledbatAloneMbps()).comma();
        field("idle_use").number(f.idleUse()).comma();
        field("added_delay_ms").number(f.addedDelayMillis()).comma();
        field("tcp_joins");
        join(f.tcpJoins());
        comma().field("ledbat_joins");
        join(f.ledbatJoins());
        out.append('}');
    }

    private void join(FairnessResult.Join j) {
        out.append('{');
        field("join_s").number(j.joinSeconds()).comma();
        field("ledbat_share").number(j.ledbatShare()).comma();
        field("tcp_mbps").number(j.tcpMbps()).comma();
        field("harm").number(j.harm()).comma();
        field("step_s").number(j.stepSeconds()).comma();
        field("ledbat_series_mbps").numbers(j.ledbatMbps()).comma();
        field("tcp_series_mbps").numbers(j.tcpSeriesMbps());
        out.append('}');
    }

    private PerfJson field(String name) {
        JsonText.string(out, name);
        out.append(':');
        return this;
    }

    private PerfJson comma() {
        out.append(',');
        return this;
    }

    private PerfJson string(String s) {
        if (s == null) {
            out.append("null");
        } else {
            JsonText.string(out, s);
        }
        return this;
    }

    private PerfJson number(Double v) {
        if (v == null || v.isNaN() || v.isInfinite()) {
            out.append("null");
        } else {
            out.append(Math.round(v * 1000) / 1000.0);
        }
        return this;
    }

    private PerfJson integer(Long v) {
        out.append(v == null ? "null" : v.toString());
        return this;
    }

    private PerfJson numbers(double[] values) {
        out.append('[');
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                out.append(',');
            }
            number(values[i]);
        }
        out.append(']');
        return this;
    }

    private PerfJson strings(List<String> values) {
        out.append('[');
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            JsonText.string(out, values.get(i));
        }
        out.append(']');
        return this;
    }
}
