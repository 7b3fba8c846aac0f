package io.ferry.transport;

import java.io.UncheckedIOException;
import java.util.List;

/**
 * Thrown by {@link Transports#close()} and {@link Transport#close()} when connections they closed could
 * not deliver everything written to them within their {@link FerryChannelOption#LINGER}: each loss is one
 * {@link UndeliveredDataException} (the first is the cause, all are in {@link #losses()}). The transports
 * are closed all the same; the exception only tells what did not arrive.
 */
public class DataLossException extends UncheckedIOException {
    private static final long serialVersionUID = 1L;

    private final transient List<UndeliveredDataException> losses;

    /** @param losses at least one loss */
    public DataLossException(List<UndeliveredDataException> losses) {
        super(message(losses), losses.get(0));
        this.losses = List.copyOf(losses);
    }

    private static String message(List<UndeliveredDataException> losses) {
        long bytes = losses.stream().mapToLong(UndeliveredDataException::unacknowledgedBytes).sum();
        return losses.size() + " connection" + (losses.size() == 1 ? "" : "s") + " closed with "
                + bytes + " byte" + (bytes == 1 ? "" : "s") + " unacknowledged; first: " + losses.get(0).getMessage();
    }

    /** Every connection's loss. */
    public List<UndeliveredDataException> losses() {
        return losses;
    }

    /** The sum of {@link UndeliveredDataException#unacknowledgedBytes()} over all losses. */
    public long unacknowledgedBytes() {
        return losses.stream().mapToLong(UndeliveredDataException::unacknowledgedBytes).sum();
    }
}
