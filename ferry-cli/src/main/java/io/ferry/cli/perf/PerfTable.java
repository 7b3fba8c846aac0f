package io.ferry.cli.perf;

import io.ferry.cli.progress.Sizes;

import java.io.PrintWriter;
import java.util.Locale;

/** The report as text for a terminal: a table of the bulk tests, the scavenger's figures, the verdict; 79 columns at most. */
final class PerfTable {

    static final int WIDTH = 79;

    private PerfTable() {
    }

    static void print(PerfReport r, PrintWriter out) {
        out.printf(Locale.ROOT, "ferry perf to %s:%d: idle round trip %s ms, %s%n%n", r.host(), r.port(), ms(r.idleRttMillis()),
                Sizes.seconds(r.seconds()));
        out.println("transport       way     Mbit/s  RTT ms   retrans     lost   CPU s/GiB");
        out.println("                                loaded                     send  recv");
        for (BulkResult t : r.bulk()) {
            if (!t.ok()) {
                out.println(fit(String.format(Locale.ROOT, "%-15s %-5s   failed: %s", t.transport(), way(t.direction()), t.error())));
                continue;
            }
            out.printf(Locale.ROOT, "%-15s %-5s %8.1f %7s %9s %8s %6s %5s%n", t.transport(), way(t.direction()), t.goodputMbps(),
                    ms(t.rttLoadedMillis()), count(t.sender().retransmissions()), count(t.sender().lost()),
                    cpu(t.senderCpuPerGiB()), cpu(t.receiverCpuPerGiB()));
        }
        FairnessResult f = r.fairness();
        if (f != null) {
            out.println();
            out.println(fit("scavenger: utp (LEDBAT) and tcp (" + f.tcpCc() + "), uploads; share 2 s after join"));
            out.println(fit(String.format(Locale.ROOT, "  alone:            tcp %.1f Mbit/s, ledbat %.1f (%.0f %%), queue %s ms",
                    f.tcpAloneMbps(), f.ledbatAloneMbps(), 100 * f.idleUse(), signed(f.addedDelayMillis()))));
            out.println(fit(join("tcp joins ledbat", f.tcpJoins())));
            out.println(fit(join("ledbat joins tcp", f.ledbatJoins())));
        }
        out.println();
        for (String line : r.verdict()) {
            wrap(line, out);
        }
        out.flush();
    }

    private static String join(String name, FairnessResult.Join j) {
        return String.format(Locale.ROOT, "  %s: ledbat's share %.0f %%, tcp %.1f Mbit/s (%.2f× alone)",
                name, 100 * j.ledbatShare(), j.tcpMbps(), j.harm());
    }

    static String way(String direction) {
        return switch (direction) {
            case "up" -> "up";
            case "down" -> "down";
            case "bidir-up" -> "up*";
            case "bidir-down" -> "down*";
            default -> direction;
        };
    }

    private static String ms(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String signed(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%+.1f", v);
    }

    private static String cpu(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String count(Long v) {
        return v == null ? "-" : v.toString();
    }

    private static String fit(String s) {
        return s.length() <= WIDTH ? s : s.substring(0, WIDTH - 3) + "...";
    }

    /** Words wrapped at {@link #WIDTH} columns, following lines indented by two. */
    static void wrap(String text, PrintWriter out) {
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > WIDTH) {
                out.println(line);
                line.setLength(0);
                line.append(' ');
            }
            if (line.length() > 0 && !line.toString().equals(" ")) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            out.println(line);
        }
    }
}
