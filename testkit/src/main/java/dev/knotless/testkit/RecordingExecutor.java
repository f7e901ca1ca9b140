package dev.knotless.testkit;

import dev.knotless.executor.Executor;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.Resumption;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.SweepReport;
import dev.knotless.executor.UntrustedNetwork;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * An executor in memory, for fast tests of what drives one: it records every {@link RunSpec} it is
 * given (started or resumed), hands out {@link FakeSession}s (a fresh one per start unless told
 * otherwise), and can refuse to start. With {@link #resumable}, it has a {@link Resumption} that
 * finds the sessions the test says are still there.
 */
public final class RecordingExecutor implements Executor {

    private final String name;
    private volatile UntrustedNetwork untrustedNetwork = UntrustedNetwork.NO_INTERFACE;
    private final List<RunSpec> started = new CopyOnWriteArrayList<>();
    private final List<RunSpec> resumed = new CopyOnWriteArrayList<>();
    private final List<FakeSession> sessions = new CopyOnWriteArrayList<>();
    private final Map<String, FakeSession> resumable = new ConcurrentHashMap<>();
    private volatile Supplier<FakeSession> next = FakeSession::new;
    private volatile Failure refusal;
    private volatile ExecutorException thrown;
    private volatile boolean canResume;

    public RecordingExecutor(String name) {
        this.name = name;
    }

    public RecordingExecutor() {
        this("fake");
    }

    /** Every start hands out {@code session} (scripted by the test). */
    public RecordingExecutor startsWith(FakeSession session) {
        this.next = () -> session;
        return this;
    }

    /** Every start fails with {@code failure}. */
    public RecordingExecutor refuses(Failure failure) {
        this.refusal = failure;
        return this;
    }

    /** Every start throws {@code exception} (a {@code ServiceNotReady}, say). */
    public RecordingExecutor throwsAtStart(ExecutorException exception) {
        this.thrown = exception;
        return this;
    }

    /** Gives this executor a {@link Resumption}; run {@code runId}'s environment is {@code session}. */
    public RecordingExecutor resumable(String runId, FakeSession session) {
        canResume = true;
        resumable.put(runId, session);
        return this;
    }

    /** Gives this executor a {@link Resumption} that finds no environment. */
    public RecordingExecutor resumableNone() {
        canResume = true;
        return this;
    }

    /** The specs of the runs started, in order. */
    public List<RunSpec> started() {
        return List.copyOf(started);
    }

    /** The specs the resumption was asked for, in order. */
    public List<RunSpec> resumed() {
        return List.copyOf(resumed);
    }

    /** The sessions handed out by starts, in order. */
    public List<FakeSession> sessions() {
        return List.copyOf(sessions);
    }

    @Override
    public String name() {
        return name;
    }

    /** What docker and node say, unless told otherwise ({@link #declares}). */
    @Override
    public UntrustedNetwork untrustedNetwork() {
        return untrustedNetwork;
    }

    /** Says this of its untrusted runs' network. */
    public RecordingExecutor declares(UntrustedNetwork value) {
        this.untrustedNetwork = value;
        return this;
    }

    @Override
    public Session start(RunSpec spec, StopSignal signal) throws ExecutorException {
        started.add(spec);
        if (thrown != null) {
            throw thrown;
        }
        if (refusal != null) {
            throw new ExecutorException(refusal);
        }
        if (signal.isStopped()) {
            throw new ExecutorException(Failure.Kind.STOPPED, "stopped before the environment was made");
        }
        FakeSession session = next.get();
        sessions.add(session);
        return session;
    }

    @Override
    public Optional<Resumption> resumption() {
        if (!canResume) {
            return Optional.empty();
        }
        return Optional.of(spec -> {
            resumed.add(spec);
            return Optional.<ResumedSession>ofNullable(resumable.get(spec.runId()));
        });
    }

    @Override
    public SweepReport sweep(String runnerId, Set<String> goingRuns) {
        return SweepReport.empty();
    }
}
