package io.ferry.cli.transfer;

import io.netty.channel.DefaultFileRegion;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;

import java.io.IOException;
import java.nio.channels.FileChannel;

/** A file open for reading, shared by the chunks and regions read from it; closed when the last lets go. */
final class SourceFile extends AbstractReferenceCounted {
    final FileChannel channel;

    SourceFile(FileChannel channel) {
        this.channel = channel;
    }

    @Override
    protected void deallocate() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // only read from
        }
    }

    @Override
    public ReferenceCounted touch(Object hint) {
        return this;
    }

    /** A DATA frame's content sent with {@code sendfile}; holds its {@link SourceFile} open until released. */
    static final class Region extends DefaultFileRegion {
        private final SourceFile source;

        Region(SourceFile source, long position, long count) {
            super(source.channel, position, count);
            this.source = source;
            source.retain();
        }

        @Override
        protected void deallocate() {
            source.release(); // not super's: that would close the channel the file's other regions use
        }
    }
}
