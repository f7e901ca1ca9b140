package dev.knotless.executor;

import java.io.IOException;
import java.io.OutputStream;

/** Writes a tar stream. May be called once; must not close {@code out}. */
@FunctionalInterface
public interface TarSource {
    void writeTo(OutputStream out) throws IOException;
}
