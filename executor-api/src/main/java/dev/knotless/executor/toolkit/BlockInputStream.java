package dev.knotless.executor.toolkit;

import java.io.IOException;
import java.io.InputStream;

/**
 * An input stream that reads in blocks only: its one-byte {@link #read()} is a block read of one,
 * so a subclass has one read path to get right (and to bound, count or hash).
 */
public abstract class BlockInputStream extends InputStream {

    @Override
    public final int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public abstract int read(byte[] b, int off, int len) throws IOException;
}
