package io.ferry.bench.scenario;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a study produced: machine-readable data, a Markdown section and the charts it drew. */
public final class StudyResult {

    private final String id;
    private final String title;
    private final String skipReason;
    private final StringBuilder markdown = new StringBuilder();
    private final Map<String, Object> data = new LinkedHashMap<>();
    private final List<String> charts = new ArrayList<>();

    private StudyResult(String id, String title, String skipReason) {
        this.id = id;
        this.title = title;
        this.skipReason = skipReason;
    }

    /** A result to fill in. */
    public static StudyResult of(Study study) {
        return new StudyResult(study.id(), study.title(), null);
    }

    /** A study that did not run, with the reason. */
    public static StudyResult skipped(Study study, String reason) {
        return new StudyResult(study.id(), study.title(), reason);
    }

    public String id() {
        return id;
    }

    public String title() {
        return title;
    }

    /** Why the study did not run, or null if it ran. */
    public String skipReason() {
        return skipReason;
    }

    /** The Markdown body (without the title). */
    public StringBuilder markdown() {
        return markdown;
    }

    /** The data for the JSON report. */
    public Map<String, Object> data() {
        return data;
    }

    /** File names of the charts, relative to the output directory. */
    public List<String> charts() {
        return charts;
    }
}
