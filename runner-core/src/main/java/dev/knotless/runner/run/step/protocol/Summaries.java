package dev.knotless.runner.run.step.protocol;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jspecify.annotations.Nullable;

/**
 * The run's summary: the markdown its steps handed back, one after another in step order, as
 * GitHub shows a job's, in one file beside the run's log that the check names. At most {@link
 * #MOST_BYTES} in all: a step's summary that would take it past that is left out, and said so.
 *
 * <p>Concurrency: thread-safe.
 */
public final class Summaries {

    /** Bytes of summary one run keeps. */
    public static final long MOST_BYTES = 1 << 20;

    private final Path file;
    private long written;

    public Summaries(Path file) {
        this.file = file;
    }

    /** Adds {@code markdown} (masked already) after what the steps before wrote; false when it would not fit. */
    public synchronized boolean add(String markdown) throws IOException {
        byte[] bytes = (markdown.endsWith("\n") ? markdown : markdown + "\n").getBytes(StandardCharsets.UTF_8);
        if (written + bytes.length > MOST_BYTES) {
            return false;
        }
        Files.createDirectories(file.getParent());
        Files.write(file, bytes, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        written += bytes.length;
        return true;
    }

    /** The file, once a step's summary is in it; else null. */
    public synchronized @Nullable Path file() {
        return written == 0 ? null : file;
    }
}
