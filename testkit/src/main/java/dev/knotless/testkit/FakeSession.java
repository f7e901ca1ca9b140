package dev.knotless.testkit;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.TarSink;
import dev.knotless.executor.TarSource;
import dev.knotless.executor.TransferLimitException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A run environment in memory, for fast tests of what drives a session: steps answer as scripted
 * (by the payload's name), and everything asked of it is recorded: the steps run, the tars
 * uploaded (by directory), the directories downloaded, the steps followed and whether it was
 * closed. It is also a {@link ResumedSession}: {@link #follow} answers as scripted, and an
 * unscripted step "never arrived" (empty).
 *
 * <p>An unscripted step exits 0 and prints nothing; an unscripted download is an empty tar.
 *
 * <p>Concurrency: scripts are set before use; the records are safe to read from the test's thread
 * while the run's thread writes them.
 */
public final class FakeSession implements ResumedSession {

    /** What a scripted step does: writes to {@code output}, watches {@code signal}, returns how it ended. */
    @FunctionalInterface
    public interface StepScript {
        StepOutcome run(StepPayload payload, OutputSink output, StopSignal signal);
    }

    /** What a scripted follow does; empty when the step never reached this environment. */
    @FunctionalInterface
    public interface FollowScript {
        Optional<StepOutcome> follow(StepPayload payload, long stdoutFrom, long stderrFrom, OutputSink output,
                StopSignal signal);
    }

    /** One {@link #follow} call, as it was asked. */
    public record Follow(String step, long stdoutFrom, long stderrFrom) {}

    /** Two zero blocks: the end of a tar archive with nothing in it. */
    private static final byte[] EMPTY_TAR = new byte[1024];

    private final String description;
    private final Map<String, StepScript> steps = new ConcurrentHashMap<>();
    private final Map<String, FollowScript> follows = new ConcurrentHashMap<>();
    private final Map<String, Failure> failingUploads = new ConcurrentHashMap<>();
    private final Map<String, byte[]> downloadable = new ConcurrentHashMap<>();
    private final Map<String, Supplier<InputStream>> streamed = new ConcurrentHashMap<>();
    private final List<StepPayload> ran = new CopyOnWriteArrayList<>();
    private final Map<String, byte[]> uploaded = new ConcurrentHashMap<>();
    private final List<String> downloaded = new CopyOnWriteArrayList<>();
    private final List<Follow> followed = new CopyOnWriteArrayList<>();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final Map<String, String> serviceLogs = new ConcurrentHashMap<>();

    public FakeSession(String description) {
        this.description = description;
    }

    public FakeSession() {
        this("fake-session");
    }

    // ---- scripts ----

    /** Step {@code name} does what {@code script} does, each time it runs. */
    public FakeSession on(String name, StepScript script) {
        steps.put(name, script);
        return this;
    }

    /** Service {@code name} has printed {@code text} ({@link #serviceLog}). */
    public FakeSession serviceLogs(String name, String text) {
        serviceLogs.put(name, text);
        return this;
    }

    /** Step {@code name} prints {@code stdout} and exits with {@code code}. */
    public FakeSession exits(String name, int code, String stdout) {
        return on(name, (payload, output, signal) -> {
            write(output, OutputSink.Stream.STDOUT, stdout);
            return new StepOutcome.Exited(code);
        });
    }

    /** Step {@code name} runs until its signal stops it (its timeout, or the run's cancel or deadline). */
    public FakeSession runsUntilStopped(String name) {
        return on(name, (payload, output, signal) -> {
            CountDownLatch stopped = new CountDownLatch(1);
            try (StopSignal.Registration r = signal.onStop(why -> stopped.countDown())) {
                if (!stopped.await(1, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("step " + name + " was never stopped");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return StepOutcome.stopped(signal.reason().orElseThrow());
        });
    }

    /** Following step {@code name} does what {@code script} does. */
    public FakeSession onFollow(String name, FollowScript script) {
        follows.put(name, script);
        return this;
    }

    /** Following step {@code name} delivers {@code stdout} (the output after the offsets) and {@code code}. */
    public FakeSession follows(String name, int code, String stdout) {
        return onFollow(name, (payload, stdoutFrom, stderrFrom, output, signal) -> {
            write(output, OutputSink.Stream.STDOUT, stdout);
            return Optional.of(new StepOutcome.Exited(code));
        });
    }

    /** An upload into {@code dir} fails with {@code failure}. */
    public FakeSession failsUpload(String dir, Failure failure) {
        failingUploads.put(dir, failure);
        return this;
    }

    /** A download of {@code dir} delivers {@code tar}. */
    public FakeSession downloads(String dir, byte[] tar) {
        downloadable.put(dir, tar.clone());
        return this;
    }

    /** A download of {@code dir} reads {@code stream}: a test decides what happens between its reads. */
    public FakeSession downloadsFrom(String dir, Supplier<InputStream> stream) {
        streamed.put(dir, stream);
        return this;
    }

    // ---- what was asked ----

    /** The payloads run, in order (steps, and anything else run through the session). */
    public List<StepPayload> ran() {
        return List.copyOf(ran);
    }

    /** The names of the payloads run, in order. */
    public List<String> ranNames() {
        return ran.stream().map(StepPayload::name).toList();
    }

    /** The bytes of each upload, by directory (the last upload into a directory wins). */
    public Map<String, byte[]> uploads() {
        return Map.copyOf(uploaded);
    }

    /** The directories downloaded, in order. */
    public List<String> downloads() {
        return List.copyOf(downloaded);
    }

    /** The follows asked for, in order. */
    public List<Follow> followed() {
        return List.copyOf(followed);
    }

    public boolean isClosed() {
        return closed.getCount() == 0;
    }

    // ---- the session ----

    @Override
    public void upload(String dir, TarSource tar, StopSignal signal) throws ExecutorException {
        stoppedAlready(signal);
        Failure failure = failingUploads.get(dir);
        if (failure != null) {
            throw new ExecutorException(failure);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            tar.writeTo(bytes);
        } catch (IOException e) {
            throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE, "upload into " + dir + ": " + e.getMessage()), e);
        }
        uploaded.put(dir, bytes.toByteArray());
    }

    @Override
    public StepOutcome run(StepPayload step, OutputSink output, StopSignal signal) {
        ran.add(step);
        if (signal.isStopped()) {
            return StepOutcome.stopped(signal.reason().orElseThrow());
        }
        StepScript script = steps.get(step.name());
        return script == null ? new StepOutcome.Exited(0) : script.run(step, output, signal);
    }

    @Override
    public void download(String dir, TarSink sink, StopSignal signal) throws ExecutorException {
        stoppedAlready(signal);
        downloaded.add(dir);
        try {
            Supplier<InputStream> stream = streamed.get(dir);
            sink.readFrom(stream != null ? stream.get() : new ByteArrayInputStream(downloadable.getOrDefault(dir, EMPTY_TAR)));
        } catch (IOException e) {
            Failure.Kind kind = e instanceof TransferLimitException ? Failure.Kind.LIMIT
                    : Failure.Kind.INFRASTRUCTURE;
            throw new ExecutorException(new Failure(kind, "download of " + dir + ": " + e.getMessage()), e);
        }
    }

    @Override
    public Optional<StepOutcome> follow(StepPayload step, long stdoutFrom, long stderrFrom, OutputSink output,
            StopSignal signal) {
        followed.add(new Follow(step.name(), stdoutFrom, stderrFrom));
        FollowScript script = follows.get(step.name());
        return script == null ? Optional.empty() : script.follow(step, stdoutFrom, stderrFrom, output, signal);
    }

    @Override
    public void serviceLog(String service, long maxBytes, OutputSink output, StopSignal signal) throws ExecutorException {
        stoppedAlready(signal);
        String text = serviceLogs.get(service);
        if (text == null) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "no service " + service);
        }
        write(output, OutputSink.Stream.STDOUT, text);
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        closed.countDown();
    }

    private static void stoppedAlready(StopSignal signal) throws ExecutorException {
        if (signal.isStopped()) {
            throw new ExecutorException(Failure.Kind.STOPPED, "stopped");
        }
    }

    private static void write(OutputSink output, OutputSink.Stream stream, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > 0) {
            output.write(stream, bytes, 0, bytes.length);
        }
    }
}
