package io.ferry.bench.scenario;

/** How much of each study to run. */
public enum Profile {
    /** CI smoke: tiny sizes, one repetition, seconds per study. */
    QUICK,
    /** Reduced but meaningful: every dimension of each study, smaller files and shorter runs (minutes per study). */
    DEFAULT,
    /** The studies' full sizes (200 MB, 110 MB, long runs): an hour or more. */
    FULL
}
