package dev.knotless.executor.node;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * An exclusive lock on a lock file beside a state file that more than one process changes (the
 * daemon, and CLI commands run beside it): read, change, replace, all under it.
 */
final class StateFileLock {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private StateFileLock() {}

    interface Body<T> {
        T run() throws IOException;
    }

    static <T> T locked(Path lockFile, Body<T> body) throws IOException {
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            FileLock lock = acquire(channel, lockFile);
            try {
                return body.run();
            } finally {
                lock.release();
            }
        }
    }

    /** Another holder in this process shows as an overlap rather than blocking: wait for it. */
    private static FileLock acquire(FileChannel channel, Path lockFile) throws IOException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            try {
                return channel.lock();
            } catch (OverlappingFileLockException e) {
                if (System.nanoTime() > deadline) {
                    throw new IOException(lockFile + " stayed locked for " + PATIENCE.toSeconds() + " s");
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while waiting for " + lockFile);
                }
            }
        }
    }
}
