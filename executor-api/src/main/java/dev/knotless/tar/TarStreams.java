package dev.knotless.tar;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/** How every tar we write is set up: POSIX long names and big numbers, UTF-8 names. */
public final class TarStreams {

    private TarStreams() {}

    public static TarArchiveOutputStream newOutput(OutputStream out) {
        TarArchiveOutputStream tar = new TarArchiveOutputStream(out, StandardCharsets.UTF_8.name());
        tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
        tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
        tar.setAddPaxHeadersForNonAsciiNames(true);
        return tar;
    }
}
