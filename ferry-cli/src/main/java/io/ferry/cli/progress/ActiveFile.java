package io.ferry.cli.progress;

/** A file a progress display follows: its name, size, what the receiver held before, and how far it is. */
final class ActiveFile {
    final String name;
    final long size;
    final long resumedFrom;
    final long startNanos = System.nanoTime();
    long done;

    ActiveFile(String name, long size, long resumedFrom) {
        this.name = name;
        this.size = size;
        this.resumedFrom = resumedFrom;
        this.done = resumedFrom;
    }
}
