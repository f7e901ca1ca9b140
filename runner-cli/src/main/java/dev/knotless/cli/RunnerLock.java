package dev.knotless.cli;

import dev.knotless.executor.RunnerId;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Tells whether this process is the only one running as this runner on this host.
 *
 * <p>Every process holds a shared lock on the runner's lock file while it runs. The one that gets
 * the lock exclusively at start knows no other process of the runner is alive, so it may sweep
 * the runner's orphans; it then holds a shared lock like the rest. A crashed process's lock is
 * released by the kernel, which is what makes its orphans sweepable.
 */
final class RunnerLock implements AutoCloseable {

    private final FileChannel channel;
    private final FileLock lock;
    private final boolean exclusive;

    private RunnerLock(FileChannel channel, FileLock lock, boolean exclusive) {
        this.channel = channel;
        this.lock = lock;
        this.exclusive = exclusive;
    }

    static RunnerLock take(Path stateDir, String runnerId) throws IOException {
        Path file = file(stateDir, runnerId);
        Files.createDirectories(file.getParent());
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
        FileLock mine = ch.tryLock(0, Long.MAX_VALUE, false);
        if (mine != null) {
            // Sole owner: sweeping is safe. Downgrade at once so that other processes may start;
            // between release and shared lock another process could sweep, but we own nothing yet.
            mine.release();
            return new RunnerLock(ch, ch.lock(0, Long.MAX_VALUE, true), true);
        }
        return new RunnerLock(ch, ch.lock(0, Long.MAX_VALUE, true), false);
    }

    /** Whether a process (this one included) runs as {@code runnerId} on {@code stateDir} now. */
    static boolean held(Path stateDir, String runnerId) throws IOException {
        Path file = file(stateDir, runnerId);
        if (!Files.exists(file)) {
            return false;
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            FileLock probe = ch.tryLock(0, Long.MAX_VALUE, false);
            if (probe == null) {
                return true;
            }
            probe.release();
            return false;
        } catch (java.nio.channels.OverlappingFileLockException sameJvm) {
            return true;
        }
    }

    /**
     * {@code runners/<id>.lock}, named by the raw id: the grammar ({@link RunnerId}) keeps out
     * {@code /} and a leading {@code .}, and bounds the length so the name fits; a DID's {@code :}
     * and {@code %} are plain file name characters on Linux. Checked here too, as the one place an
     * id becomes a path.
     */
    static Path file(Path stateDir, String runnerId) {
        return stateDir.resolve("runners").resolve(RunnerId.check(runnerId) + ".lock");
    }

    /** Whether no other process of this runner was alive when the lock was taken. */
    boolean exclusive() {
        return exclusive;
    }

    @Override
    public void close() throws IOException {
        lock.release();
        channel.close();
    }
}
