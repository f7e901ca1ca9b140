package dev.knotless.node.allocation;

import dev.knotless.node.agent.Attachment;
import dev.knotless.node.agent.MacKey;
import dev.knotless.node.runc.ExecShim;
import java.io.IOException;
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
 * One step of an allocation, detached from whoever started it and from the agent itself. Its
 * shim ({@link dev.knotless.node.runc.ExecShim}) writes its stdout and stderr to files
 * on the node ({@code stdout}, {@code stderr}) and its end to {@code status}; any number of
 * followers read them from any offset, so a runner that lost its connection, or an agent that
 * restarted, resumes where it stopped and the step never notices. The files hold what the step
 * printed, which is its log, never its payload: the payload (and the secrets in it) reaches the
 * step only on its stdin.
 *
 * <p>Concurrency: the watcher (the thread that sees the files grow and the shim end) and
 * followers meet on {@link #lock}; lengths only grow, and a follower reads the file only up to
 * the length it saw under the lock.
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
     * A step found on disk after the agent restarted: ended if its status is final, otherwise
     * still to be settled by whoever watches its shim ({@link #ended} is false).
     */
    static Optional<StepRun> load(Path dir) throws IOException {
        boolean macked = Files.isRegularFile(dir.resolve(MAC_FILE));
        Path digestFile = dir.resolve(macked ? MAC_FILE : FIRST_DIGEST_FILE);
        if (!Files.isRegularFile(digestFile)) {
            return Optional.empty();
        }
        StepRun run = new StepRun(dir, Files.readString(digestFile, StandardCharsets.US_ASCII).strip(), macked);
        run.grew();
        Path status = dir.resolve("status");
        if (Files.isRegularFile(status)) {
            run.end = parse(Files.readString(status, StandardCharsets.UTF_8)).orElse(null);
        }
        return Optional.of(run);
    }

    /** The step's directory, where its shim keeps its files. */
    ExecShim.StepFiles files() {
        return new ExecShim.StepFiles(dir);
    }

    /** The exit code the shim recorded ({@code exit N}), before the agent has settled it. */
    Optional<Integer> shimExit() throws IOException {
        Path status = dir.resolve("status");
        if (!Files.isRegularFile(status)) {
            return Optional.empty();
        }
        String line = Files.readString(status, StandardCharsets.UTF_8).strip();
        return line.startsWith("exit ") ? Optional.of(Integer.parseInt(line.substring(5))) : Optional.empty();
    }

    /** From the step's start to its shim's status. */
    long durationMs() throws IOException {
        return Math.max(0, Files.getLastModifiedTime(dir.resolve("status")).toMillis() - startedMs());
    }

    /**
     * How long ago the step started, by the wall clock (the one clock two agent processes share);
     * 0 if that cannot be read.
     */
    long ageMs() {
        try {
            return Math.max(0, System.currentTimeMillis() - startedMs());
        } catch (IOException e) {
            return 0;
        }
    }

    /** When the step started: its payload's MAC is written just before its shim starts. */
    private long startedMs() throws IOException {
        return Files.getLastModifiedTime(dir.resolve(macked ? MAC_FILE : FIRST_DIGEST_FILE)).toMillis();
    }

    /** Publishes what the shim has written to the output files so far. */
    void grew() throws IOException {
        long out = Files.size(dir.resolve("stdout"));
        long err = Files.size(dir.resolve("stderr"));
        synchronized (lock) {
            if (out != stdoutLength || err != stderrLength) {
                stdoutLength = Math.max(stdoutLength, out);
                stderrLength = Math.max(stderrLength, err);
                lock.notifyAll();
            }
        }
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

    /** Records the end durably, then wakes the followers. */
    void finish(End how) {
        try {
            grew();
        } catch (IOException e) {
            // the lengths stay as last seen
        }
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

    /** A final status; empty for the shim's own {@code exit N}, which the agent has yet to settle. */
    private static Optional<End> parse(String text) {
        String line = text.strip();
        if (line.startsWith("exit ")) {
            return Optional.empty();
        }
        if (line.startsWith("exited ")) {
            String[] parts = line.split(" ");
            return Optional.of(new End.Exited(Integer.parseInt(parts[1]), Long.parseLong(parts[2])));
        }
        return Optional.of(new End.Broken(line.startsWith("broken ") ? line.substring(7) : "unreadable step status: " + line));
    }
}
