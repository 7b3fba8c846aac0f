package io.ferry.bench.transfer;

/** A bulk flow whose delivered bytes a study samples over time, whatever carries it. */
public interface MeasuredFlow extends AutoCloseable {

    /** The flow's label in reports, e.g. {@code tcp-cubic-1}. */
    String label();

    /** Payload bytes the receiver got so far. */
    long receivedBytes();

    /** Stops the flow and releases what it holds; never throws. */
    @Override
    void close();
}
