package dev.knotless.checks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Space in the state directory held for one run's last record, {@code <state>/checks/.<id>.reserve}:
 * written in full (real blocks, not a hole) before the run does anything that can fail for space,
 * and given back when the run must record its end on a full state directory, so that its check is
 * final at once rather than left {@code running}. While the run is still going, the reserve can be
 * {@link #markFull marked} in place, which takes no new block: a runner restarted before it could
 * record the check finds the mark and ends the run with the same reason.
 *
 * <p>Concurrency: one run uses its reserve from one thread at a time.
 */
public final class SpaceReserve {

    /** Room for a final check file and the state row's pages in the database's write-ahead log. */
    static final int BYTES = 256 * 1024;
    private static final byte[] MARK = "state directory full\n".getBytes(StandardCharsets.US_ASCII);

    private final Path file;

    SpaceReserve(Path file) {
        this.file = file;
    }

    /** Writes the reserve unless it is there already (a resumed run keeps its first, mark and all). */
    public void take() throws IOException {
        if (Files.isRegularFile(file) && (Files.size(file) == BYTES || markedFull())) {
            return;
        }
        Files.createDirectories(file.getParent());
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer zeros = ByteBuffer.allocate(BYTES);
            while (zeros.hasRemaining()) {
                ch.write(zeros);
            }
            ch.force(true);
        } catch (IOException e) {
            Files.deleteIfExists(file);
            throw e;
        }
    }

    /** Marks the reserve: the run met a full state directory. Overwrites its first bytes in place. */
    public void markFull() throws IOException {
        if (!Files.isRegularFile(file)) {
            return;
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(MARK), 0);
            ch.force(true);
        }
    }

    /** Whether the run met a full state directory before its check could be recorded. */
    public boolean markedFull() throws IOException {
        if (!Files.isRegularFile(file)) {
            return false;
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer head = ByteBuffer.allocate(MARK.length);
            while (head.hasRemaining() && ch.read(head) > 0) {
                // read the mark's length, or what there is
            }
            return Arrays.equals(head.array(), MARK);
        }
    }

    /**
     * Marks the reserve and gives its space back but the mark's block: what a run does when its
     * last record does not fit.
     */
    public void spend() throws IOException {
        markFull();
        if (Files.isRegularFile(file)) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(MARK.length);
                ch.force(true);
            }
        }
    }

    /** Gives the space back, mark and all: the run's check is recorded. */
    public void release() throws IOException {
        Files.deleteIfExists(file);
    }

    @Override
    public String toString() {
        return file.toString();
    }
}
