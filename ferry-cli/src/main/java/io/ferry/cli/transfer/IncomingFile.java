package io.ferry.cli.transfer;

import io.netty.buffer.ByteBuf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Arrays;

import static io.ferry.cli.transfer.TransferProtocol.*;

/**
 * One file being received, with its disk operations. Every method except the constructor runs on the
 * file's own disk queue, never on the event loop. Content goes to {@code .NAME.ferry-part} next to
 * the target and is renamed to NAME only after the checksum of the whole content matched; the
 * {@code .ferry-part} file survives a lost connection so the next send can resume from it.
 */
final class IncomingFile {

    /** What {@link #prepare} found. */
    record Accept(int kind, long offset, byte[] checksum) {
    }

    final int id;
    final String name;
    final long size;
    final Path target;
    final Path partial;
    final boolean overwrite;
    final Checksum checksum;
    final long startNanos = System.nanoTime();

    private FileChannel out;
    private MessageDigest digest;
    private int kind;
    private long acceptedOffset;
    private long resumedFrom;
    private volatile long position;
    /** Eager content of a file not accepted as new is dropped until the sender's START ({@link #startEager}). */
    private boolean droppingEager;
    private boolean keepPartial = true;

    IncomingFile(int id, String name, long size, Path target, boolean overwrite, Checksum checksum) {
        this.checksum = checksum;
        this.id = id;
        this.name = name;
        this.size = size;
        this.target = target;
        this.partial = target.resolveSibling("." + target.getFileName() + ".ferry-part");
        this.overwrite = overwrite;
    }

    /**
     * Looks at what is already here: an identical-size file (offered for comparison), a partial file
     * (its prefix hashed for resuming) or nothing.
     *
     * @param eagerDropped whether EAGER content of the file arrived before it could be opened and was dropped:
     *                     then it is not accepted as new (kind 0) but as 0 bytes held, which the sender answers
     *                     by starting it again
     * @throws RefusedException if the file cannot be received (exists, not writable, outside the directory)
     */
    Accept prepare(ReceivingDirectory directory, boolean eagerDropped) throws IOException {
        Accept accept = prepare(directory);
        return eagerDropped && accept.kind() == KIND_NEW ? new Accept(KIND_PARTIAL, 0, Digests.peek(digest)) : accept;
    }

    private Accept prepare(ReceivingDirectory directory) throws IOException {
        directory.ensureParent(target.getParent(), name);
        digest = checksum.newDigest();
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
                throw new RefusedException(name + " exists in the receiving directory and is not a regular file");
            }
            if (Files.size(target) == size) {
                try (FileChannel existing = FileChannel.open(target, StandardOpenOption.READ)) {
                    Digests.update(digest, existing, size);
                }
                kind = KIND_EXISTING;
                acceptedOffset = size;
                existingDigest = digest.digest();
                return new Accept(kind, size, existingDigest);
            }
            if (!overwrite) {
                throw new RefusedException(name + " already exists with different content (the receiver was not started with --overwrite)");
            }
        }
        try {
            // The usual case, no partial file yet: made here, never through a link (O_EXCL), and without the
            // exception a look for a missing file costs.
            directory.checkRoomFor(name, size, partial);
            out = FileChannel.open(partial, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            kind = KIND_NEW;
            acceptedOffset = 0;
            return new Accept(kind, 0, null);
        } catch (FileAlreadyExistsException held) {
            // a partial file from an earlier send (or something else by that name: below)
        }
        if (Files.isRegularFile(partial, LinkOption.NOFOLLOW_LINKS)) {
            out = FileChannel.open(partial, StandardOpenOption.WRITE, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
            long held = out.size();
            if (held > size) {
                out.truncate(0);
                held = 0;
            }
            Digests.update(digest, out, held);
            kind = held > 0 ? KIND_PARTIAL : KIND_NEW;
            acceptedOffset = held;
            return new Accept(kind, held, Digests.peek(digest));
        }
        throw new RefusedException(name + ": " + partial.getFileName() + " (where it would be received) exists in the receiving "
                + "directory and is not a regular file");
    }

    /**
     * The sender began the file's content from 0 without waiting for the ACCEPT (EAGER). Kept if the file was
     * accepted as new; otherwise dropped until the sender's START, which it sends once it saw the ACCEPT.
     *
     * @return whether the content that follows is kept
     */
    boolean startEager() throws IOException {
        if (kind == KIND_NEW && acceptedOffset == 0) {
            return start(0);
        }
        droppingEager = true;
        return false;
    }

    /**
     * The sender starts at {@code offset}: what we offered (its prefix matched) or 0 (start over).
     *
     * @return true: the content that follows is kept
     */
    boolean start(long offset) throws IOException {
        droppingEager = false;
        if (offset == acceptedOffset && kind != KIND_NEW) {
            position = offset;
            resumedFrom = offset;
            if (kind == KIND_EXISTING && offset != size) {
                throw new ProtocolViolation("start at " + offset + " of an existing file of " + size + " bytes");
            }
            return true;
        }
        if (offset != 0) {
            throw new ProtocolViolation("start at " + offset + " but " + acceptedOffset + " bytes were offered");
        }
        if (kind == KIND_EXISTING) {
            if (!overwrite) {
                throw new RefusedException(name + " already exists with different content (the receiver was not started with --overwrite)");
            }
            out = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING,
                    LinkOption.NOFOLLOW_LINKS);
            kind = KIND_NEW;
        } else if (acceptedOffset > 0) {
            out.truncate(0);
        }
        digest.reset();
        position = 0;
        resumedFrom = 0;
        return true;
    }

    /** Writes and hashes the next content bytes; the caller releases {@code content}. */
    void write(ByteBuf content) throws IOException {
        if (droppingEager) {
            return; // eager content of a file held here: the sender starts it again
        }
        int length = content.readableBytes();
        if (out == null || position + length > size) {
            throw new ProtocolViolation("more content than the " + size + " bytes offered for " + name);
        }
        // The buffers as they arrived (a frame often spans several reads): each is hashed and written where it
        // lies, where nioBuffer() would first copy them into one.
        long at = position;
        for (ByteBuffer piece : content.nioBuffers()) {
            digest.update(piece.duplicate());
            while (piece.hasRemaining()) {
                at += out.write(piece, at);
            }
        }
        position += length;
    }

    /**
     * Compares the sender's checksum with ours and, if they match, renames the file into place.
     *
     * @return the status to report
     * @throws RefusedException on a mismatch (the partial file is deleted) or if the target appeared meanwhile
     */
    int finish(byte[] theirs) throws IOException {
        if (position != size) {
            throw new ProtocolViolation("end of " + name + " after " + position + " of " + size + " bytes");
        }
        byte[] ours = kind == KIND_EXISTING ? digestOfExisting() : digest.digest();
        if (!Arrays.equals(ours, theirs)) {
            keepPartial = false;
            throw new RefusedException(checksum.label() + " of " + name + " does not match: received "
                    + java.util.HexFormat.of().formatHex(ours) + ", sender computed " + java.util.HexFormat.of().formatHex(theirs)
                    + "; the received data was discarded");
        }
        checksumValue = ours;
        if (kind == KIND_EXISTING) {
            return STATUS_ALREADY_PRESENT;
        }
        out.close();
        out = null;
        if (overwrite) {
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } else {
            moveWithoutReplacing();
        }
        return STATUS_STORED;
    }

    private byte[] existingDigest;
    /** The verified checksum of the whole content, once {@link #finish} matched it. */
    byte[] checksumValue;

    private byte[] digestOfExisting() {
        return existingDigest;
    }

    /** Renames into place, failing rather than replacing a file that appeared meanwhile. */
    private void moveWithoutReplacing() throws IOException {
        try {
            Files.createLink(target, partial); // atomic, and fails if the target exists
        } catch (FileAlreadyExistsException exists) {
            throw new RefusedException(name + " appeared in the receiving directory during the transfer; not replaced (no --overwrite)");
        } catch (UnsupportedOperationException | FileSystemException noHardLinks) {
            // A file system without hard links: a plain atomic rename, which may replace a file that appeared meanwhile.
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
            return;
        }
        Files.delete(partial);
    }

    /** Bytes of content now in the partial file. */
    long position() {
        return position;
    }

    long resumedFrom() {
        return resumedFrom;
    }

    /** Closes the partial file; keeps it for a later resume unless its content was proven wrong. */
    void close() {
        if (out != null) {
            try {
                out.close();
            } catch (IOException ignored) {
                // nothing more is written
            }
            out = null;
        }
        if (!keepPartial) {
            try {
                Files.deleteIfExists(partial);
            } catch (IOException ignored) {
                // best effort: a stray .ferry-part file never carries a final name
            }
        }
    }

    /** The file cannot be received; the message says why. */
    static final class RefusedException extends IOException {
        private static final long serialVersionUID = 1L;

        RefusedException(String message) {
            super(message);
        }
    }

    /** The sender broke the protocol. */
    static final class ProtocolViolation extends IOException {
        private static final long serialVersionUID = 1L;

        ProtocolViolation(String message) {
            super(message);
        }
    }
}
