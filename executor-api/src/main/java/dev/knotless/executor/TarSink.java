package dev.knotless.executor;

import java.io.IOException;
import java.io.InputStream;

/** Consumes a tar stream; reads until the end of the archive or of {@code in}. */
@FunctionalInterface
public interface TarSink {
    void readFrom(InputStream in) throws IOException;
}
