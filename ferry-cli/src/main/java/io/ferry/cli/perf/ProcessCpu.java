package io.ferry.cli.perf;

import java.lang.management.ManagementFactory;

/** This process's CPU time (all threads, user and system), for CPU seconds per GiB moved. */
final class ProcessCpu {

    private ProcessCpu() {
    }

    /** Nanoseconds of CPU this process used so far, or -1 where the JVM does not say. */
    static long nanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }
}
