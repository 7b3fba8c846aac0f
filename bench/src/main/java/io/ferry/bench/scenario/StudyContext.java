package io.ferry.bench.scenario;

import java.io.PrintStream;
import java.nio.file.Path;

/**
 * What a study runs with.
 *
 * @param profile     how much to run
 * @param repetitions repetitions per measured cell, 0 for the study's default for the profile
 * @param out         where charts go
 * @param transports  the transports to cover
 * @param log         progress output
 */
public record StudyContext(Profile profile, int repetitions, Path out, TransportCatalog transports, PrintStream log) {

    /** {@code repetitions} if set, else the given default. */
    public int repetitionsOr(int byDefault) {
        return repetitions > 0 ? repetitions : byDefault;
    }

    /** Chooses a value by profile. */
    public <T> T pick(T quick, T normal, T full) {
        return switch (profile) {
            case QUICK -> quick;
            case DEFAULT -> normal;
            case FULL -> full;
        };
    }
}
