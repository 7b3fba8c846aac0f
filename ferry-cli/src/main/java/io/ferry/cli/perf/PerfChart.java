package io.ferry.cli.perf;

import java.util.Locale;

/**
 * The report as an SVG chart: goodput per transport and direction (bars), and, when the scavenger was
 * tested, each join run's rates over time (LEDBAT and TCP, the join marked). Plain SVG 1.1, no script.
 */
final class PerfChart {

    private static final int WIDTH = 800;
    private static final int ROW = 20;
    private static final int LABEL = 170;
    private static final int PLOT_HEIGHT = 200;
    private static final String LEDBAT_COLOUR = "#e08a1e";
    private static final String TCP_COLOUR = "#2f6db5";

    private final StringBuilder svg = new StringBuilder();

    private PerfChart() {
    }

    static String of(PerfReport r) {
        PerfChart c = new PerfChart();
        int barsHeight = 50 + ROW * r.bulk().size();
        int height = barsHeight + (r.fairness() != null ? PLOT_HEIGHT + 90 : 10);
        c.svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, height));
        c.svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        c.text(10, 20, "ferry perf to " + r.host() + ":" + r.port() + ": goodput, Mbit/s", "bold");
        c.bars(r, 40);
        if (r.fairness() != null) {
            FairnessResult f = r.fairness();
            c.text(10, barsHeight + 25, "scavenger: utp (LEDBAT, orange) and tcp (" + f.tcpCc() + ", blue), Mbit/s over seconds", "bold");
            int w = (WIDTH - 60) / 2;
            c.plot("tcp joins ledbat", f.tcpJoins(), 40, barsHeight + 40, w);
            c.plot("ledbat joins tcp", f.ledbatJoins(), 60 + w, barsHeight + 40, w);
        }
        c.svg.append("</svg>\n");
        return c.svg.toString();
    }

    private void bars(PerfReport r, int top) {
        double max = r.bulk().stream().filter(BulkResult::ok).mapToDouble(BulkResult::goodputMbps).max().orElse(1);
        int span = WIDTH - LABEL - 80;
        for (int i = 0; i < r.bulk().size(); i++) {
            BulkResult t = r.bulk().get(i);
            int y = top + i * ROW;
            text(10, y + 14, t.transport() + " " + PerfTable.way(t.direction()), null);
            if (!t.ok()) {
                text(LABEL, y + 14, "failed", null);
                continue;
            }
            double w = max > 0 ? t.goodputMbps() / max * span : 0;
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n", LABEL, y + 3,
                    w, ROW - 6, t.direction().endsWith("up") ? TCP_COLOUR : "#5a9e4b"));
            text((int) (LABEL + w + 6), y + 14, String.format(Locale.ROOT, "%.1f", t.goodputMbps()), null);
        }
    }

    private void plot(String title, FairnessResult.Join j, int x, int y, int w) {
        double max = 1;
        for (double v : j.ledbatMbps()) {
            max = Math.max(max, v);
        }
        for (double v : j.tcpSeriesMbps()) {
            max = Math.max(max, v);
        }
        int n = Math.max(j.ledbatMbps().length, j.tcpSeriesMbps().length);
        double seconds = n * j.stepSeconds();
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>%n",
                x, y, w, PLOT_HEIGHT));
        text(x, y + PLOT_HEIGHT + 16, "0 s", null);
        text(x + w - 30, y + PLOT_HEIGHT + 16, String.format(Locale.ROOT, "%.0f s", seconds), null);
        text(x - 30, y + 10, String.format(Locale.ROOT, "%.0f", max), null);
        text(x + 5, y + PLOT_HEIGHT + 32, String.format(Locale.ROOT, "%s: ledbat's share %.0f %%, tcp %.2f× alone", title,
                100 * j.ledbatShare(), j.harm()), null);
        double joinX = x + (seconds > 0 ? j.joinSeconds() / seconds * w : 0);
        svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>%n",
                joinX, y, joinX, y + PLOT_HEIGHT));
        line(j.ledbatMbps(), x, y, w, n, max, LEDBAT_COLOUR);
        line(j.tcpSeriesMbps(), x, y, w, n, max, TCP_COLOUR);
    }

    private void line(double[] values, int x, int y, int w, int n, double max, String colour) {
        if (values.length == 0) {
            return;
        }
        svg.append("<polyline fill=\"none\" stroke=\"").append(colour).append("\" stroke-width=\"2\" points=\"");
        for (int i = 0; i < values.length; i++) {
            double px = x + (i + 0.5) / n * w;
            double py = y + PLOT_HEIGHT - (Double.isNaN(values[i]) ? 0 : values[i]) / max * PLOT_HEIGHT;
            svg.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
        }
        svg.append("\"/>\n");
    }

    private void text(int x, int y, String s, String weight) {
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\"%s>%s</text>%n", x, y,
                weight == null ? "" : " font-weight=\"" + weight + "\"", escape(s)));
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
