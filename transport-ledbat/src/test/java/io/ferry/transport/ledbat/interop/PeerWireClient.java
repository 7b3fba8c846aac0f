package io.ferry.transport.ledbat.interop;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Just enough of the BitTorrent peer wire protocol (BEP 3) to download a whole torrent from one seed:
 * handshake, bitfield, interested, unchoke, pipelined requests, pieces checked against their SHA-1.
 */
final class PeerWireClient extends ByteToMessageDecoder {

    static final byte[] PROTOCOL = "BitTorrent protocol".getBytes(StandardCharsets.US_ASCII);
    static final int HANDSHAKE_LENGTH = 1 + 19 + 8 + 20 + 20;
    private static final int BLOCK = 16 * 1024;

    private final byte[] infoHash;
    private final byte[] peerId;
    private final int pieceLength;
    private final long totalSize;
    private final List<String> pieceHashes;
    private final byte[][] pieces;
    private final int[] received;
    private final CompletableFuture<byte[]> download = new CompletableFuture<>();
    private boolean handshaken;
    private boolean requested;
    private int verified;
    private byte[] remotePeerId;

    PeerWireClient(byte[] infoHash, byte[] peerId, int pieceLength, long totalSize, List<String> pieceHashes) {
        this.infoHash = infoHash;
        this.peerId = peerId;
        this.pieceLength = pieceLength;
        this.totalSize = totalSize;
        this.pieceHashes = pieceHashes;
        this.pieces = new byte[pieceHashes.size()][];
        this.received = new int[pieceHashes.size()];
        for (int i = 0; i < pieces.length; i++) {
            pieces[i] = new byte[pieceSize(i)];
        }
    }

    /** Completes with the whole content once every piece matched its SHA-1. */
    CompletableFuture<byte[]> download() {
        return download;
    }

    byte[] remotePeerId() {
        return remotePeerId;
    }

    static ByteBuf handshake(ChannelHandlerContext ctx, byte[] infoHash, byte[] peerId) {
        return ctx.alloc().buffer(HANDSHAKE_LENGTH).writeByte(19).writeBytes(PROTOCOL).writeZero(8)
                .writeBytes(infoHash).writeBytes(peerId);
    }

    private int pieceSize(int index) {
        return (int) Math.min(pieceLength, totalSize - (long) index * pieceLength);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        ctx.writeAndFlush(handshake(ctx, infoHash, peerId));
        super.channelActive(ctx);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (!handshaken) {
            if (in.readableBytes() < HANDSHAKE_LENGTH) {
                return;
            }
            byte[] hs = new byte[HANDSHAKE_LENGTH];
            in.readBytes(hs);
            if (hs[0] != 19 || !Arrays.equals(Arrays.copyOfRange(hs, 1, 20), PROTOCOL)) {
                throw new IllegalStateException("not a BitTorrent handshake");
            }
            if (!Arrays.equals(Arrays.copyOfRange(hs, 28, 48), infoHash)) {
                throw new IllegalStateException("the seed answered for another torrent");
            }
            remotePeerId = Arrays.copyOfRange(hs, 48, 68);
            handshaken = true;
            ctx.writeAndFlush(ctx.alloc().buffer(5).writeInt(1).writeByte(2)); // interested
        }
        while (in.readableBytes() >= 4) {
            int length = in.getInt(in.readerIndex());
            if (in.readableBytes() < 4 + length) {
                return;
            }
            in.skipBytes(4);
            if (length == 0) {
                continue; // keep-alive
            }
            int id = in.readUnsignedByte();
            ByteBuf body = in.readSlice(length - 1);
            if (id == 1 && !requested) { // unchoke
                requested = true;
                requestEverything(ctx);
            } else if (id == 7) { // piece
                onBlock(body);
            }
        }
    }

    private void requestEverything(ChannelHandlerContext ctx) {
        for (int index = 0; index < pieces.length; index++) {
            for (int begin = 0; begin < pieceSize(index); begin += BLOCK) {
                int length = Math.min(BLOCK, pieceSize(index) - begin);
                ctx.write(ctx.alloc().buffer(17).writeInt(13).writeByte(6).writeInt(index).writeInt(begin).writeInt(length));
            }
        }
        ctx.flush();
    }

    private void onBlock(ByteBuf body) throws Exception {
        int index = body.readInt();
        int begin = body.readInt();
        int length = body.readableBytes();
        body.readBytes(pieces[index], begin, length);
        received[index] += length;
        if (received[index] == pieces[index].length) {
            String sha1 = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(pieces[index]));
            if (!sha1.equals(pieceHashes.get(index))) {
                download.completeExceptionally(new AssertionError("piece " + index + " fails its SHA-1 check"));
                return;
            }
            if (++verified == pieces.length) {
                byte[] all = new byte[(int) totalSize];
                for (int i = 0; i < pieces.length; i++) {
                    System.arraycopy(pieces[i], 0, all, i * pieceLength, pieces[i].length);
                }
                download.complete(all);
            }
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        download.completeExceptionally(cause);
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        download.completeExceptionally(new AssertionError("the seed closed the connection after " + verified + " pieces"));
        super.channelInactive(ctx);
    }
}
