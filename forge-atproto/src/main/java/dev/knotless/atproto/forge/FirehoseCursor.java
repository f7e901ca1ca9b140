package dev.knotless.atproto.forge;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.OptionalLong;
import java.util.Properties;

/**
 * The last firehose {@code seq} handled, kept in a small file of the state directory so a
 * restarted daemon resumes where it stopped: {@code pds=URL} and {@code seq=N} lines.
 *
 * <p>A file of its own rather than a row of the forge's cursors: those are keyed by repository
 * name, and a reserved name there would be one more thing every reader of them must skip. The
 * PDS's URL is kept beside the number because a {@code seq} means nothing on another PDS: a
 * cursor of another one is not used. Written to a temporary file then moved over, so a crash
 * leaves the old cursor or the new one, never half of one.
 */
public final class FirehoseCursor implements StreamCursor {

    /** A cursor file is two short lines; anything larger is not ours. */
    private static final long MAX_BYTES = 4096;

    private final Path file;
    private final String pds;

    public FirehoseCursor(Path file, String pds) {
        this.file = file;
        this.pds = pds;
    }

    public Path file() {
        return file;
    }

    @Override
    public String where() {
        return file.toString();
    }

    /** The stored cursor for this PDS; empty when there is none, it is of another PDS, or it cannot be read. */
    @Override
    public OptionalLong load() throws IOException {
        String text;
        try {
            if (Files.size(file) > MAX_BYTES) {
                return OptionalLong.empty();
            }
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return OptionalLong.empty();
        }
        Properties p = new Properties();
        p.load(new StringReader(text));
        if (!pds.equals(p.getProperty("pds"))) {
            return OptionalLong.empty();
        }
        try {
            long seq = Long.parseLong(p.getProperty("seq", ""));
            return seq >= 0 ? OptionalLong.of(seq) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    @Override
    public void save(long seq) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path next = file.resolveSibling(file.getFileName() + ".next");
        Files.writeString(next, "pds=" + escape(pds) + "\nseq=" + seq + "\n", StandardCharsets.UTF_8);
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Drops the cursor: the PDS no longer knows it (its sequence was reset). */
    @Override
    public void forget() throws IOException {
        Files.deleteIfExists(file);
    }

    /** A URL as a properties value: {@code :} and {@code =} are escaped by {@link Properties}' rules. */
    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace(":", "\\:").replace("=", "\\=");
    }
}
