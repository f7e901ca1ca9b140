package dev.knotless.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Executor;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Guarded;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepPayload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;

/**
 * The scenarios every executor must pass, against the real thing it drives (never a fake engine
 * or cluster). An executor module's integration test extends this class and says how to reach
 * the executor, which image has {@code /bin/sh}, and what it still holds for a runner.
 *
 * <p>The scenarios live by subject in {@link TransferContract}, {@link StepContract}, {@link
 * StopContract}, {@link IsolationContract}, {@link HostileOutputContract}, {@link LimitsContract},
 * {@link ProcessSetContract}, {@link RunEnvironmentContract}, {@link DeadlineContract}, {@link
 * CutStreamContract} and {@link ServiceContract}; this class runs them all. They reach the
 * executor exactly as the runner does, through {@link Guarded#executor}.
 *
 * <p>Each test runs under a fresh random runner id, so tests never touch each other's (or anyone
 * else's) runs, and after each test nothing labelled with that runner may remain: sessions the
 * test opened are closed, then {@link #leftovers} must be empty (a sweep cleans up either way, so
 * one failure does not litter the shared engine).
 *
 * <p>Steps run under the image's {@code /bin/sh}; the scripts use only POSIX sh and BusyBox
 * applets.
 */
public abstract class ExecutorContract implements TransferContract, StepContract, StopContract, IsolationContract,
        HostileOutputContract, LimitsContract, ProcessSetContract, RunEnvironmentContract, DeadlineContract,
        CutStreamContract, ServiceContract {

    private ContractRun run;

    @TempDir
    protected Path temp;

    /** The executor under test; may be shared by all tests. */
    protected abstract Executor executor();

    /** An image with {@code /bin/sh} and BusyBox-like applets ({@code sha256sum}, {@code base64}, {@code tr}). */
    protected abstract String image();

    /** What the executor still has (containers, Jobs, pods, allocations) labelled with {@code runnerId}. */
    protected abstract List<String> leftovers(String runnerId) throws Exception;

    /**
     * For an executor that keeps untrusted runs off the network by policy objects: asserts that
     * they exist, deny both directions and select the untrusted run and not the trusted one.
     */
    protected void untrustedPoliciesDeny(RunSpec untrusted, RunSpec trusted) throws Exception {
        throw new AssertionError(executor().name() + " declares policy enforcement, but its test does not check the policies");
    }

    /**
     * The executor behind a proxy that can cut its connections, for {@link CutStreamContract}. An
     * executor test that has no such proxy yet says so, and that scenario is skipped, not passed.
     */
    @Override
    public CuttableExecutor cuttable() throws Exception {
        throw new TestAbortedException(executor().name() + ": this test puts no cutting proxy in front of the executor");
    }

    /**
     * How long past a run's deadline the executor itself ends a run whose runner is gone; empty
     * (the default) when it leaves that to the runner, whose sweep at restart removes it.
     */
    protected Optional<Duration> endsAbandonedRunsWithin() {
        return Optional.empty();
    }

    /** What of {@code runnerId}'s runs still runs; by default everything {@link #leftovers} lists. */
    protected List<String> stillRunning(String runnerId) throws Exception {
        return leftovers(runnerId);
    }

    /** The kill grace the scenarios use. */
    protected Duration killGrace() {
        return Duration.ofSeconds(2);
    }

    @BeforeEach
    final void freshRunner() {
        run = new ContractRun(Guarded.executor(executor()), "contract-" + randomHex(6), image(), killGrace(), temp,
                this::leftovers, this::untrustedPoliciesDeny,
                new ContractRun.Abandonment(endsAbandonedRunsWithin(), this::stillRunning));
    }

    @AfterEach
    final void nothingIsLeftBehind() throws Exception {
        run.closeOpened();
        List<String> left = leftovers(run.runnerId());
        run.executor().sweep(run.runnerId(), Set.of());
        assertThat(left).as("what the executor still has for runner %s after the test", run.runnerId()).isEmpty();
    }

    @Override
    public final ContractRun contract() {
        return run;
    }

    // ---- helpers for subclasses ----------------------------------------------------------------

    protected final String runnerId() {
        return run.runnerId();
    }

    /** A spec for a new run of this test's runner, on {@link #image()}. */
    protected RunSpec.Builder spec() {
        return run.spec();
    }

    /** Starts a session, through the guard, that is closed after the test. */
    protected Session open() throws ExecutorException {
        return run.open();
    }

    protected Session open(RunSpec spec) throws ExecutorException {
        return run.open(spec);
    }

    protected static StepPayload sh(String name, String script) {
        return ContractSupport.sh(name, script);
    }

    /** Every process's command line in the run, one a line. */
    protected static String processes(Session s) {
        return ContractSupport.processes(s);
    }

    protected static String randomHex(int bytes) {
        return ContractSupport.randomHex(bytes);
    }
}
