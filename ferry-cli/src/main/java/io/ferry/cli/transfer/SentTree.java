package io.ferry.cli.transfer;

import io.netty.channel.ChannelHandlerContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.ferry.cli.transfer.TransferProtocol.STATUS_STORED;

/**
 * The directories and symbolic links a sending session sends (protocol 7's ENTRY frames, ids after the
 * files'), and what the receiver answered for each. On the session's event loop.
 */
final class SentTree {

    private final List<SendPlan.TreeEntry> entries;
    private final int firstId;
    private final boolean[] answered;
    private final List<FileOutcome> failures = new ArrayList<>();
    private boolean sent;
    private int answers;

    SentTree(List<SendPlan.TreeEntry> entries, int firstId) {
        this.entries = entries;
        this.firstId = firstId;
        this.answered = new boolean[entries.size()];
    }

    /** Writes every ENTRY, the first time only (before the first offer: parents before what goes in them). */
    void sendOnce(ChannelHandlerContext ctx) {
        if (sent) {
            return;
        }
        sent = true;
        for (int i = 0; i < entries.size(); i++) {
            ctx.write(Frames.entry(ctx.alloc(), firstId + i, entries.get(i)));
        }
    }

    boolean sent() {
        return sent;
    }

    boolean owns(int id) {
        return id >= firstId && id < firstId + entries.size();
    }

    /** The receiver's VERDICT for entry {@code id}; a failure is kept as a failed outcome named after the entry. */
    void onVerdict(int id, int status, String message, Checksum checksum) {
        int i = id - firstId;
        if (answered[i]) {
            return;
        }
        answered[i] = true;
        answers++;
        if (status != STATUS_STORED) {
            failures.add(new FileOutcome(entries.get(i).name(), 0, 0, 0, FileOutcome.Status.FAILED,
                    "the receiver refused " + entries.get(i).name() + ": " + message, Optional.empty(), checksum, Duration.ZERO,
                    Optional.empty()));
        }
    }

    /** Whether every entry has its verdict. */
    boolean done() {
        return answers == entries.size();
    }

    List<FileOutcome> failures() {
        return failures;
    }
}
