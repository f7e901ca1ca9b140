package dev.knotless.executor.toolkit;

import java.io.IOException;
import java.io.OutputStream;

/**
 * An output stream that writes in blocks only: its one-byte {@link #write(int)} is a block write
 * of one, so a subclass has one write path to get right (and to frame, bound or count).
 */
public abstract class BlockOutputStream extends OutputStream {

    @Override
    public final void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public abstract void write(byte[] b, int off, int len) throws IOException;
}
