package io.ferry.examples.transfer;

import io.ferry.transport.FerryChannels;
import io.ferry.transport.TransportStatistics;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Sends one file over a connection: the offer, the content read in chunks while computing its SHA-256
 * (honouring the channel's writability, so memory stays bounded on any transport), the digest, and then
 * waits for the receiver's verdict. The connection is closed when the verdict arrives.
 */
public final class FileSender extends ChannelInboundHandlerAdapter {

    private final Path file;
    private final String name;
    private final ProgressListener progress;
    private final int chunkSize;
    private final CompletableFuture<TransferResult> result = new CompletableFuture<>();
    private final MessageDigest digest = Digests.sha256();

    private FileChannel source;
    private long size;
    private long queued;
    private long acceptedByTransport;
    private long startNanos;
    private byte[] sentDigest;
    private ByteBuf verdict;

    /**
     * @param file      the file to send
     * @param name      the name the receiver stores it under ('/'-separated relative path)
     * @param chunkSize bytes read and written at a time
     */
    public FileSender(Path file, String name, ProgressListener progress, int chunkSize) {
        this.file = file;
        this.name = name;
        this.progress = progress;
        this.chunkSize = chunkSize;
    }

    /** Completes when the receiver confirms the file, or fails with {@link TransferFailedException}. */
    public CompletableFuture<TransferResult> result() {
        return result;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        startNanos = System.nanoTime();
        try {
            source = FileChannel.open(file, StandardOpenOption.READ);
            size = source.size();
        } catch (NoSuchFileException e) {
            fail(ctx, "cannot read " + file + ": no such file", null);
            return;
        } catch (IOException e) {
            fail(ctx, "cannot read " + file + ": " + e.getMessage(), e);
            return;
        }
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        ByteBuf offer = ctx.alloc().buffer(TransferProtocol.OFFER_PREFIX + nameBytes.length + 8);
        offer.writeBytes(TransferProtocol.MAGIC).writeByte(TransferProtocol.VERSION)
                .writeShort(nameBytes.length).writeBytes(nameBytes).writeLong(size);
        ctx.write(offer);
        progress.started(name, size);
        writeMore(ctx);
        ctx.fireChannelActive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            writeMore(ctx);
        }
        ctx.fireChannelWritabilityChanged();
    }

    private void writeMore(ChannelHandlerContext ctx) {
        if (result.isDone() || sentDigest != null) {
            return;
        }
        try {
            while (queued < size && ctx.channel().isWritable()) {
                int n = (int) Math.min(chunkSize, size - queued);
                ByteBuf chunk = ctx.alloc().ioBuffer(n);
                int read;
                try {
                    read = chunk.writeBytes(source, queued, n);
                } catch (IOException | RuntimeException e) {
                    chunk.release();
                    throw e;
                }
                if (read <= 0) {
                    chunk.release();
                    fail(ctx, file + " shrank while it was being sent (" + queued + " of " + size + " bytes read)", null);
                    return;
                }
                digest.update(chunk.nioBuffer());
                queued += read;
                ctx.write(chunk).addListener(f -> {
                    if (f.isSuccess()) {
                        acceptedByTransport += read;
                        progress.advanced(acceptedByTransport);
                    }
                });
            }
            if (queued == size) {
                sentDigest = digest.digest();
                ctx.write(ctx.alloc().buffer(TransferProtocol.DIGEST_LENGTH).writeBytes(sentDigest));
            }
            ctx.flush();
        } catch (IOException e) {
            fail(ctx, "cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            if (verdict == null) {
                verdict = ctx.alloc().buffer(256);
            }
            verdict.writeBytes(in);
        } finally {
            in.release();
        }
        if (verdict.readableBytes() < TransferProtocol.VERDICT_PREFIX) {
            return;
        }
        for (int i = 0; i < TransferProtocol.MAGIC.length; i++) {
            if (verdict.getByte(i) != TransferProtocol.MAGIC[i]) {
                fail(ctx, "the peer at " + ctx.channel().remoteAddress() + " does not speak the ferry protocol", null);
                return;
            }
        }
        int status = verdict.getUnsignedByte(TransferProtocol.MAGIC.length);
        int messageLength = verdict.getUnsignedShort(TransferProtocol.MAGIC.length + 1);
        if (verdict.readableBytes() < TransferProtocol.VERDICT_PREFIX + messageLength) {
            return;
        }
        String message = verdict.toString(TransferProtocol.VERDICT_PREFIX, messageLength, StandardCharsets.UTF_8);
        if (status == TransferProtocol.STATUS_OK && sentDigest != null) {
            Optional<TransportStatistics> stats = Optional.of(FerryChannels.statistics(ctx.channel()));
            progress.advanced(size);
            progress.finished();
            result.complete(new TransferResult(name, size, Duration.ofNanos(System.nanoTime() - startNanos), sentDigest,
                    Optional.empty(), stats));
            ctx.close();
        } else {
            fail(ctx, "the receiver refused " + name + ": " + message, null);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        fail(ctx, "the connection to the receiver closed before it confirmed " + name
                + " (" + acceptedByTransport + " of " + size + " bytes sent)", null);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, "transfer of " + name + " failed: " + cause.getMessage(), cause);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        release();
    }

    private void fail(ChannelHandlerContext ctx, String message, Throwable cause) {
        if (!result.isDone()) {
            progress.finished();
            result.completeExceptionally(new TransferFailedException(message, cause));
        }
        release();
        ctx.close();
    }

    private void release() {
        if (verdict != null) {
            verdict.release();
            verdict = null;
        }
        if (source != null) {
            try {
                source.close();
            } catch (IOException ignored) {
                // nothing was written through this channel
            }
            source = null;
        }
    }
}
