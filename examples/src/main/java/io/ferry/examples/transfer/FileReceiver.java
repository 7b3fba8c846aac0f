package io.ferry.examples.transfer;

import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Receives files on one connection into a directory. Content goes to a hidden temporary file next to
 * the target ({@code .NAME.ferry-part}) and is renamed to its final name only after its SHA-256 matched
 * the sender's; anything else (a refused name, a digest mismatch, a write error, a lost connection)
 * deletes the temporary file, so no partial file ever appears under its final name.
 */
public final class FileReceiver extends ByteToMessageDecoder {

    private enum State { OFFER, CONTENT, TRAILER, FAILED }

    /** What a receiver reports about each file. */
    public interface Events {
        /** A file was stored and verified. */
        void stored(TransferResult result);

        /** A transfer was refused or failed; the message says why. */
        void failed(String message);
    }

    private final Path directory;
    private final boolean overwrite;
    private final ProgressListener progress;
    private final Events events;

    private State state = State.OFFER;
    private String name;
    private long size;
    private long received;
    private Path target;
    private Path partial;
    private FileChannel out;
    private MessageDigest digest;
    private long startNanos;

    public FileReceiver(Path directory, boolean overwrite, ProgressListener progress, Events events) {
        this.directory = directory;
        this.overwrite = overwrite;
        this.progress = progress;
        this.events = events;
    }

    /** Convenience for callers that only log. */
    public static Events events(Consumer<TransferResult> stored, Consumer<String> failed) {
        return new Events() {
            @Override
            public void stored(TransferResult result) {
                stored.accept(result);
            }

            @Override
            public void failed(String message) {
                failed.accept(message);
            }
        };
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> unused) {
        while (in.isReadable()) {
            switch (state) {
                case OFFER:
                    if (!readOffer(ctx, in)) {
                        return;
                    }
                    break;
                case CONTENT:
                    readContent(ctx, in);
                    break;
                case TRAILER:
                    if (in.readableBytes() < TransferProtocol.DIGEST_LENGTH) {
                        return;
                    }
                    byte[] theirs = new byte[TransferProtocol.DIGEST_LENGTH];
                    in.readBytes(theirs);
                    finish(ctx, theirs);
                    break;
                case FAILED:
                default:
                    in.skipBytes(in.readableBytes());
                    return;
            }
        }
    }

    /** Parses an offer once it is complete; returns false while more bytes are needed. */
    private boolean readOffer(ChannelHandlerContext ctx, ByteBuf in) {
        int start = in.readerIndex();
        int magicCheck = Math.min(in.readableBytes(), TransferProtocol.MAGIC.length);
        for (int i = 0; i < magicCheck; i++) {
            if (in.getByte(start + i) != TransferProtocol.MAGIC[i]) {
                refuse(ctx, "the peer at " + ctx.channel().remoteAddress() + " does not speak the ferry protocol");
                return false;
            }
        }
        if (in.readableBytes() < TransferProtocol.OFFER_PREFIX) {
            return false;
        }
        int version = in.getUnsignedByte(start + TransferProtocol.MAGIC.length);
        if (version != TransferProtocol.VERSION) {
            refuse(ctx, "unsupported ferry protocol version " + version + " (this receiver speaks " + TransferProtocol.VERSION + ")");
            return false;
        }
        int nameLength = in.getUnsignedShort(start + TransferProtocol.MAGIC.length + 1);
        if (nameLength > TransferProtocol.MAX_NAME_BYTES) {
            refuse(ctx, "file name of " + nameLength + " bytes is longer than " + TransferProtocol.MAX_NAME_BYTES);
            return false;
        }
        if (in.readableBytes() < TransferProtocol.OFFER_PREFIX + nameLength + 8) {
            return false;
        }
        in.skipBytes(TransferProtocol.OFFER_PREFIX);
        name = in.readCharSequence(nameLength, StandardCharsets.UTF_8).toString();
        size = in.readLong();
        if (size < 0) {
            refuse(ctx, "negative file size " + size + " for " + name);
            return false;
        }
        try {
            target = SafeNames.resolve(directory, name);
        } catch (SafeNames.UnsafeNameException e) {
            refuse(ctx, e.getMessage());
            return false;
        }
        if (!overwrite && Files.exists(target)) {
            refuse(ctx, name + " already exists in " + directory + " (the receiver was not started with --overwrite)");
            return false;
        }
        partial = target.resolveSibling("." + target.getFileName() + ".ferry-part");
        try {
            Files.createDirectories(target.getParent());
            out = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        } catch (IOException e) {
            refuse(ctx, "cannot write " + partial + ": " + describe(e));
            return false;
        }
        digest = Digests.sha256();
        received = 0;
        startNanos = System.nanoTime();
        progress.started(name, size);
        state = size == 0 ? State.TRAILER : State.CONTENT;
        return true;
    }

    private void readContent(ChannelHandlerContext ctx, ByteBuf in) {
        int n = (int) Math.min(in.readableBytes(), size - received);
        ByteBuf slice = in.readSlice(n);
        digest.update(slice.nioBuffer());
        try {
            while (slice.isReadable()) {
                slice.readBytes(out, slice.readableBytes());
            }
        } catch (IOException e) {
            refuse(ctx, "cannot write " + partial + ": " + describe(e));
            return;
        }
        received += n;
        progress.advanced(received);
        if (received == size) {
            state = State.TRAILER;
        }
    }

    private void finish(ChannelHandlerContext ctx, byte[] theirs) {
        byte[] ours = digest.digest();
        if (!Arrays.equals(ours, theirs)) {
            refuse(ctx, "SHA-256 of " + name + " does not match: received " + HexFormat.of().formatHex(ours)
                    + ", sender computed " + HexFormat.of().formatHex(theirs));
            return;
        }
        try {
            out.close();
            out = null;
            if (overwrite) {
                Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } else {
                moveWithoutReplacing();
            }
        } catch (FileAlreadyExistsException e) {
            refuse(ctx, name + " appeared in " + directory + " during the transfer; not replaced (no --overwrite)");
            return;
        } catch (IOException e) {
            refuse(ctx, "cannot store " + target + ": " + describe(e));
            return;
        }
        partial = null;
        progress.finished();
        Optional<TransportStatistics> stats = Optional.of(FerryChannels.statistics(ctx.channel()));
        TransferResult result = new TransferResult(name, size, Duration.ofNanos(System.nanoTime() - startNanos), ours,
                Optional.of(target), stats);
        verdict(ctx, TransferProtocol.STATUS_OK, "stored " + name + " sha256=" + result.sha256Hex());
        events.stored(result);
        state = State.OFFER;
    }

    /** Renames into place, failing rather than replacing a file that appeared meanwhile. */
    private void moveWithoutReplacing() throws IOException {
        try {
            Files.createLink(target, partial); // atomic, and fails if the target exists
        } catch (FileAlreadyExistsException exists) {
            throw exists;
        } catch (UnsupportedOperationException | java.nio.file.FileSystemException noHardLinks) {
            // A file system without hard links: a plain atomic rename, which may replace a file that appeared meanwhile.
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
            return;
        }
        Files.delete(partial);
    }

    private void refuse(ChannelHandlerContext ctx, String message) {
        discardPartial();
        if (state != State.FAILED) {
            state = State.FAILED;
            progress.finished();
            events.failed(message);
            verdict(ctx, TransferProtocol.STATUS_FAILED, message).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private io.netty.channel.ChannelFuture verdict(ChannelHandlerContext ctx, int status, String message) {
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        int length = Math.min(text.length, 65_535);
        ByteBuf buf = ctx.alloc().buffer(TransferProtocol.VERDICT_PREFIX + length);
        buf.writeBytes(TransferProtocol.MAGIC).writeByte(status).writeShort(length).writeBytes(text, 0, length);
        return ctx.writeAndFlush(buf);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (state == State.CONTENT || state == State.TRAILER) {
            String message = "connection from " + ctx.channel().remoteAddress() + " ended after " + received + " of " + size
                    + " bytes of " + name + "; partial data discarded";
            discardPartial();
            state = State.FAILED;
            progress.finished();
            events.failed(message);
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (state == State.CONTENT || state == State.TRAILER) {
            refuse(ctx, "transfer of " + name + " failed: " + cause.getMessage());
        } else {
            ctx.close();
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        discardPartial();
    }

    private void discardPartial() {
        if (out != null) {
            try {
                out.close();
            } catch (IOException ignored) {
                // the file is deleted next
            }
            out = null;
        }
        if (partial != null) {
            try {
                Files.deleteIfExists(partial);
            } catch (IOException ignored) {
                // best effort: a stray .ferry-part file never carries a final name
            }
            partial = null;
        }
    }

    private static String describe(IOException e) {
        String reason = e.getMessage();
        if (e instanceof java.nio.file.FileSystemException && ((java.nio.file.FileSystemException) e).getReason() != null) {
            reason = ((java.nio.file.FileSystemException) e).getReason();
        }
        return reason == null ? e.getClass().getSimpleName() : reason;
    }
}
