package io.ferry.cli.transfer;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

import java.util.function.Consumer;

/**
 * A stand-in receiver's handler for tests: drops everything it reads and answers the first read, once, with
 * {@code answer} (a hello of another version, a refusal, bytes of another protocol).
 */
final class AnswerOnce extends ChannelInboundHandlerAdapter {
    private final Consumer<ChannelHandlerContext> answer;
    private boolean answered;

    AnswerOnce(Consumer<ChannelHandlerContext> answer) {
        this.answer = answer;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
        if (!answered) {
            answered = true;
            answer.accept(ctx);
        }
    }
}
