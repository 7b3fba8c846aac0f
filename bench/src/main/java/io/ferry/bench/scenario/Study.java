package io.ferry.bench.scenario;

import java.util.Optional;

/** One of the five experiments of DESIGN.md, reproduced on emulated links. */
public interface Study {

    /** Short id used by {@code --only}, e.g. {@code fairness}. */
    String id();

    /** Title for the report. */
    String title();

    /** Why the study cannot run here at all (for example: it needs root), or empty. */
    Optional<String> cannotRun();

    /** Runs the study. */
    StudyResult run(StudyContext context) throws Exception;
}
