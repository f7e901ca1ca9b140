package dev.knotless.executor.node.allocation;

import dev.knotless.executor.node.agent.Attachment;
import dev.knotless.executor.node.agent.MacKey;
import dev.knotless.tar.BlockOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One step of an allocation, detached from whoever started it. Its stdout and stderr go to files
 * on the node ({@code stdout}, {@code stderr}) and its end to {@code status}; any number of
 * followers read them from any offset, so a runner that lost its connection resumes where it
 * stopped and the step never notices. The files hold what the step printed, which is its log,
 * never its payload: the payload (and the secrets in it) reaches the step only on its stdin.
 *
 * <p>Concurrency: the writer (the thread running the step) and followers meet on {@link #lock};
 * lengths only grow, and a follower reads the file only up to the length it saw under the lock.
 */
final class StepRun {

    /** How the step ended: its exit code, or why the node could not run it. */
    sealed interface End {
        record Exited(int exitCode, long durationMs) implements End {}

        record Broken(String reason) implements End {}
    }

    private static final int CHUNK = 64 * 1024;

    /** How the payload is recognised: its HMAC under the allocation's key, or (a step started before) its SHA-256. */
    private static final String MAC_FILE = "payload.hmac";
    private static final String FIRST_DIGEST_FILE = "payload.sha256";

    private final Path dir;
    private final String payloadDigest;
    private final boolean macked;
    private final Object lock = new Object();
    // @GuardedBy("lock")
    private long stdoutLength;
    // @GuardedBy("lock")
    private long stderrLength;
    // @GuardedBy("lock")
    private @Nullable End end;

    private StepRun(Path dir, String payloadDigest, boolean macked) {
        this.dir = dir;
        this.payloadDigest = payloadDigest;
        this.macked = macked;
    }

    /** A new step: its directory is made now, empty, with the payload's MAC (never the payload). */
    static StepRun create(Path dir, byte[] payload, MacKey key) throws IOException {
        Files.createDirectories(dir);
        String mac = key.mac(payload);
        Files.writeString(dir.resolve(MAC_FILE), mac, StandardCharsets.US_ASCII);
        Files.write(dir.resolve("stdout"), new byte[0]);
        Files.write(dir.resolve("stderr"), new byte[0]);
        return new StepRun(dir, mac, true);
    }

    /**
     * A step found on disk after the agent restarted: ended if it has a status, otherwise it was
     * lost with the agent (its stdio went with the old process), which is reported, not hidden.
     */
    static Optional<StepRun> load(Path dir) throws IOException {
        boolean macked = Files.isRegularFile(dir.resolve(MAC_FILE));
        Path digestFile = dir.resolve(macked ? MAC_FILE : FIRST_DIGEST_FILE);
        if (!Files.isRegularFile(digestFile)) {
            return Optional.empty();
        }
        StepRun run = new StepRun(dir, Files.readString(digestFile, StandardCharsets.US_ASCII).strip(), macked);
        run.stdoutLength = Files.size(dir.resolve("stdout"));
        run.stderrLength = Files.size(dir.resolve("stderr"));
        Path status = dir.resolve("status");
        run.end = Files.isRegularFile(status)
                ? parse(Files.readString(status, StandardCharsets.UTF_8))
                : new End.Broken("the step was running when the node agent restarted; its result is unknown");
        return Optional.of(run);
    }

    /** Whether the step was started with this payload. */
    boolean startedWith(byte[] payload, MacKey key) {
        String expected = macked ? key.mac(payload) : Digests.sha256(payload);
        return MessageDigest.isEqual(payloadDigest.getBytes(StandardCharsets.US_ASCII), expected.getBytes(StandardCharsets.US_ASCII));
    }

    boolean ended() {
        synchronized (lock) {
            return end != null;
        }
    }

    /** Where the step's stdout goes (append-only). */
    OutputStream stdoutSink() throws IOException {
        return new Appender(dir.resolve("stdout"), true);
    }

    OutputStream stderrSink() throws IOException {
        return new Appender(dir.resolve("stderr"), false);
    }

    /** Records the end durably, then wakes the followers. */
    void finish(End how) {
        try {
            Path tmp = dir.resolve("status.tmp");
            Files.writeString(tmp, format(how), StandardCharsets.UTF_8);
            try {
                Files.move(tmp, dir.resolve("status"), StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, dir.resolve("status"), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            // The end still reaches the followers in memory; only a restart would miss it.
        }
        synchronized (lock) {
            end = how;
            lock.notifyAll();
        }
    }

    /** What a follower gets at the end: how the step ended and every byte count. */
    record Followed(End end, long stdoutBytes, long stderrBytes) {}

    /**
     * Sends the output from the given offsets as it grows, until the step has ended and all of it
     * is sent. A write that fails (the runner went away) ends following with that exception; the
     * step runs on.
     */
    Followed follow(long stdoutFrom, long stderrFrom, Attachment.StepOutput output) throws IOException, InterruptedException {
        long out = stdoutFrom;
        long err = stderrFrom;
        try (FileChannel stdout = FileChannel.open(dir.resolve("stdout"), StandardOpenOption.READ);
                FileChannel stderr = FileChannel.open(dir.resolve("stderr"), StandardOpenOption.READ)) {
            while (true) {
                long outLength;
                long errLength;
                End ended;
                synchronized (lock) {
                    while (end == null && stdoutLength == out && stderrLength == err) {
                        lock.wait(1000);
                    }
                    outLength = stdoutLength;
                    errLength = stderrLength;
                    ended = end;
                }
                if (out > outLength || err > errLength) {
                    throw new IOException("output offsets " + out + "/" + err + " are past what the step wrote ("
                            + outLength + "/" + errLength + ")");
                }
                out = copy(stdout, out, outLength, output::stdout);
                err = copy(stderr, err, errLength, output::stderr);
                if (ended != null) {
                    return new Followed(ended, outLength, errLength);
                }
            }
        }
    }

    private interface Sink {
        void write(byte[] buffer, int offset, int length) throws IOException;
    }

    private static long copy(FileChannel from, long position, long limit, Sink to) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(CHUNK, Math.max(1, limit - position)));
        while (position < limit) {
            buffer.clear().limit((int) Math.min(buffer.capacity(), limit - position));
            int n = from.read(buffer, position);
            if (n < 0) {
                throw new IOException("step output file is shorter than recorded");
            }
            to.write(buffer.array(), 0, n);
            position += n;
        }
        return position;
    }

    private static String format(End how) {
        return switch (how) {
            case End.Exited e -> "exited " + e.exitCode() + " " + e.durationMs() + "\n";
            case End.Broken b -> "broken " + b.reason().replaceAll("\\R", " ") + "\n";
        };
    }

    private static End parse(String text) {
        String line = text.strip();
        if (line.startsWith("exited ")) {
            String[] parts = line.split(" ");
            return new End.Exited(Integer.parseInt(parts[1]), Long.parseLong(parts[2]));
        }
        return new End.Broken(line.startsWith("broken ") ? line.substring(7) : "unreadable step status: " + line);
    }

    /** Appends to one output file and publishes the new length to followers. */
    private final class Appender extends BlockOutputStream {
        private final FileChannel channel;
        private final boolean isStdout;

        Appender(Path file, boolean isStdout) throws IOException {
            this.channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            this.isStdout = isStdout;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            synchronized (lock) {
                if (isStdout) {
                    stdoutLength += len;
                } else {
                    stderrLength += len;
                }
                lock.notifyAll();
            }
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
