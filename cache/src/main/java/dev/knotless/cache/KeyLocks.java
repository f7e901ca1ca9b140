package dev.knotless.cache;

import dev.knotless.files.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock per cache key, held while a key's layer or metadata files change: an in-JVM lock for
 * the threads of this runner, then an OS file lock on {@code locks/<key id>.lock} for other
 * runner processes sharing the state directory (one-shot runs on the same host).
 *
 * <p>The in-JVM locks are shared by every store of the process, keyed by lock file, because a JVM
 * may hold a file's OS lock only once: two stores on one directory take turns instead of failing
 * with {@link java.nio.channels.OverlappingFileLockException}. Not reentrant for the same reason:
 * a thread holding a key's lock must not lock it again. Nobody holds two keys at once.
 */
final class KeyLocks {

    private static final ConcurrentMap<Path, ReentrantLock> IN_JVM = new ConcurrentHashMap<>();

    private final Path dir;

    KeyLocks(Path dir) {
        this.dir = dir.toAbsolutePath().normalize();
    }

    Held lock(String keyId) throws IOException {
        Path file = dir.resolve(keyId + ".lock");
        ReentrantLock lock = IN_JVM.computeIfAbsent(file, f -> new ReentrantLock());
        lock.lock();
        FileChannel channel = null;
        try {
            Files.createDirectories(dir, OwnerOnlyFiles.DIRECTORY);
            channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE), OwnerOnlyFiles.FILE);
            channel.lock();
            return new Held(lock, channel);
        } catch (IOException | RuntimeException | Error e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            lock.unlock();
            throw e;
        }
    }

    static final class Held implements AutoCloseable {
        private final ReentrantLock lock;
        private final FileChannel channel;

        private Held(ReentrantLock lock, FileChannel channel) {
            this.lock = lock;
            this.channel = channel;
        }

        @Override
        public void close() throws IOException {
            try {
                channel.close(); // releases the file lock
            } finally {
                lock.unlock();
            }
        }
    }
}
