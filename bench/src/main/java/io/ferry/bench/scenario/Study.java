package io.ferry.bench.scenario;

import io.ferry.bench.netns.RootAccess;

import java.util.Optional;

/** One of the five experiments of DESIGN.md, reproduced on emulated links. */
public interface Study {

    /** Short id used by {@code --only}, e.g. {@code fairness}. */
    String id();

    /** Title for the report. */
    String title();

    /**
     * Why the study cannot run here at all, or empty. Most studies need the emulated network, so by
     * default this is what {@link RootAccess#missing()} reports; a study that can do without overrides it.
     */
    default Optional<String> cannotRun() {
        return RootAccess.missing();
    }

    /** Runs the study. */
    StudyResult run(StudyContext context) throws Exception;
}
