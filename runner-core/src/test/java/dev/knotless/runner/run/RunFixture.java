package dev.knotless.runner.run;

import dev.knotless.cache.CacheStore;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStore;
import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import dev.knotless.plan.dialects.Dialects;
import dev.knotless.runner.run.record.CheckRecorder;
import dev.knotless.runner.run.record.RunListener;
import dev.knotless.runner.run.recovery.RunJournal;
import dev.knotless.runner.run.recovery.RunProgress;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.secrets.SecretStore;
import dev.knotless.tar.TarStreams;
import dev.knotless.testkit.RecordingExecutor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/** A run over a {@link RecordingExecutor} in a temp state dir: requests, the run, and what it left. */
public final class RunFixture {

    public static final String SHA = "0123456789abcdef0123456789abcdef01234567";
    public static final byte[] CHECKOUT = "the checkout tar".getBytes(StandardCharsets.UTF_8);

    public final Path stateDir;
    public final CheckStore files;
    public final SecretStore secrets = SecretStore.inMemory();
    public final CacheStore caches;
    public final List<RunProgress> journaled = new java.util.concurrent.CopyOnWriteArrayList<>();
    public final RunJournal journal = new RunJournal() {
        @Override
        public void record(String runId, RunProgress progress) {
            journaled.add(progress);
        }

        @Override
        public java.util.Optional<RunProgress> read(String runId) {
            return journaled.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(journaled.getLast());
        }
    };
    /** The session the fixture's executor starts every run in. */
    public final dev.knotless.testkit.FakeSession session = new dev.knotless.testkit.FakeSession("fake-1");
    public final RecordingExecutor executor = new RecordingExecutor("fake").startsWith(session);
    public RunLimits limits = RunLimits.DEFAULT;
    public Clock clock = Clock.systemUTC();
    private int runs;

    public RunFixture(Path stateDir) {
        this.stateDir = stateDir;
        this.files = new CheckStore(stateDir);
        this.caches = new CacheStore(stateDir.resolve("cache"), 1L << 30, Clock.systemUTC());
    }

    /** Runs {@code yaml}'s workflow to its end on the fixture's executor. */
    public Check execute(String yaml, Cancellation cancellation) {
        return run(executor).execute(request(yaml), cancellation);
    }

    public Run run(RecordingExecutor executor) {
        return new Run(executor, CheckRecorder.filesOnly(files), secrets, caches, RunListener.NONE, limits, journal, clock);
    }

    /** A run whose deadlines are measured on {@code ticker}, its instants on {@link #clock}. */
    public Run run(RecordingExecutor executor, dev.knotless.time.Ticker ticker) {
        return new Run(executor, CheckRecorder.filesOnly(files), secrets, caches, RunListener.NONE, limits, journal, clock,
                ticker, dev.knotless.runner.run.runtime.Runtimes.NONE, dev.knotless.runner.run.environment.ImagePins.NONE);
    }

    public RunRequest request(String yaml) {
        return request(yaml, Event.PUSH, Trust.TRUSTED, "refs/heads/main");
    }

    public RunRequest request(String yaml, Event event, Trust trust, String ref) {
        try {
            return new RunRequest("run-" + (++runs), "runner-1", "acme/app", SHA, ref, "refs/heads/main", event, trust,
                    Dialects.standard().parse(".knotless/workflows/ci.yaml", yaml), out -> out.write(CHECKOUT), Map.of(),
                    "local/test:1", false);
        } catch (dev.knotless.plan.WorkflowException e) {
            throw new IllegalArgumentException(e);
        }
    }

    public String log(Check check) {
        try {
            return Files.readString(Path.of(check.log()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A tar of {@code files} (name to content), as a session would stream a directory. */
    public static byte[] tar(Map<String, byte[]> files) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = TarStreams.newOutput(bytes)) {
            for (Map.Entry<String, byte[]> f : files.entrySet()) {
                TarArchiveEntry entry = new TarArchiveEntry(f.getKey());
                entry.setSize(f.getValue().length);
                tar.putArchiveEntry(entry);
                tar.write(f.getValue());
                tar.closeArchiveEntry();
            }
            tar.finish();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** The files of a tar, name to text. */
    public static Map<String, String> untar(byte[] tar) {
        Map<String, String> files = new LinkedHashMap<>();
        try (TarArchiveInputStream in = new TarArchiveInputStream(new java.io.ByteArrayInputStream(tar))) {
            for (TarArchiveEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                files.put(e.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    public static List<String> names(List<dev.knotless.checks.StepResult> steps) {
        List<String> out = new ArrayList<>();
        steps.forEach(s -> out.add(s.name() + ":" + s.status().wireName()));
        return out;
    }
}
