package io.ferry.bench.report;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** PNG line charts for the reports, drawn with XChart in headless mode. */
public final class Charts {

    static {
        System.setProperty("java.awt.headless", "true");
    }

    private Charts() {
    }

    /** A series: name and points (x, y); points with a non-finite y are left out. */
    public record Series(String name, List<double[]> points) {
    }

    /**
     * Writes a line chart to {@code file} (PNG).
     *
     * @param logX whether the x axis is logarithmic
     * @param logY whether the y axis is logarithmic
     */
    public static void line(Path file, String title, String xTitle, String yTitle, List<Series> series,
                            boolean logX, boolean logY) throws IOException {
        XYChart chart = new XYChartBuilder().width(900).height(520).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setXAxisLogarithmic(logX);
        chart.getStyler().setYAxisLogarithmic(logY);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        boolean any = false;
        for (Series s : series) {
            List<double[]> pts = s.points().stream()
                    .filter(p -> Double.isFinite(p[1]) && (!logY || p[1] > 0) && (!logX || p[0] > 0)).toList();
            if (pts.isEmpty()) {
                continue;
            }
            double[] x = pts.stream().mapToDouble(p -> p[0]).toArray();
            double[] y = pts.stream().mapToDouble(p -> p[1]).toArray();
            XYSeries xy = chart.addSeries(s.name(), x, y);
            xy.setMarker(SeriesMarkers.CIRCLE);
            any = true;
        }
        if (!any) {
            chart.addSeries("no data", new double[] {logX ? 1 : 0}, new double[] {logY ? 1 : 0});
        }
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /**
     * Writes a grouped bar chart to {@code file} (PNG): one group per category, one bar per series in each;
     * a series holds one value per category, NaN where it has none (drawn as no bar).
     */
    public static void bars(Path file, String title, String xTitle, String yTitle, List<String> categories,
                            Map<String, List<Double>> series) throws IOException {
        CategoryChart chart = new CategoryChartBuilder().width(1000).height(540).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setOverlapped(false);
        boolean any = false;
        for (Map.Entry<String, List<Double>> e : series.entrySet()) {
            if (e.getValue().size() != categories.size()) {
                throw new IllegalArgumentException("series " + e.getKey() + " has " + e.getValue().size() + " values for "
                        + categories.size() + " categories");
            }
            if (e.getValue().stream().noneMatch(Double::isFinite)) {
                continue;
            }
            List<Double> ys = e.getValue().stream().map(v -> Double.isFinite(v) ? v : 0.0).toList();
            chart.addSeries(e.getKey(), categories, ys);
            any = true;
        }
        if (!any) {
            chart.addSeries("no data", List.of("none"), List.of(0.0));
        }
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /** Convenience: one series per map entry. */
    public static List<Series> series(Map<String, List<double[]>> byName) {
        return byName.entrySet().stream().map(e -> new Series(e.getKey(), e.getValue())).toList();
    }
}
