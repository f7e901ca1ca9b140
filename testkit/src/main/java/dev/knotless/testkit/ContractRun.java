package dev.knotless.testkit;

import dev.knotless.executor.Executor;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StopSignal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One contract test's runner: the executor as the runner gets it (through {@code Guarded}), a
 * fresh random runner id, the image and kill grace the scenarios use, a temporary directory, and
 * the sessions the test opened, closed after it.
 */
public final class ContractRun {

    /** What the executor still has (containers, Jobs, pods, allocations) labelled with a runner id. */
    @FunctionalInterface
    public interface Leftovers {
        List<String> of(String runnerId) throws Exception;
    }

    /** Asserts that the policies an executor declares keep an untrusted run off the network; both runs are going. */
    public interface NetworkPolicies {
        void denyUntrusted(RunSpec untrusted, RunSpec trusted) throws Exception;
    }

    /**
     * What the executor does by itself with a run whose runner is gone at its deadline.
     *
     * @param endsWithin how long past the deadline the executor ends the environment by itself;
     *     empty when it leaves that to the runner (the restarted runner's sweep)
     * @param stillRunning what of a runner's runs still runs (a pod, a container, an allocation)
     */
    public record Abandonment(Optional<Duration> endsWithin, Leftovers stillRunning) {
        public List<String> stillRunning(String runnerId) throws Exception {
            return stillRunning.of(runnerId);
        }
    }

    private final Executor executor;
    private final String runnerId;
    private final String image;
    private final Duration killGrace;
    private final Path temp;
    private final Leftovers leftovers;
    private final NetworkPolicies policies;
    private final Abandonment abandonment;
    private final List<Session> opened = new ArrayList<>();

    ContractRun(Executor executor, String runnerId, String image, Duration killGrace, Path temp, Leftovers leftovers,
            NetworkPolicies policies, Abandonment abandonment) {
        this.executor = executor;
        this.runnerId = runnerId;
        this.image = image;
        this.killGrace = killGrace;
        this.temp = temp;
        this.leftovers = leftovers;
        this.policies = policies;
        this.abandonment = abandonment;
    }

    /** The executor under test, guarded as every caller gets it. */
    public Executor executor() {
        return executor;
    }

    public String runnerId() {
        return runnerId;
    }

    public String image() {
        return image;
    }

    public Duration killGrace() {
        return killGrace;
    }

    public Path temp() {
        return temp;
    }

    /** What the executor still has for this test's runner. */
    public List<String> leftovers() throws Exception {
        return leftovers.of(runnerId);
    }

    public List<String> leftovers(String otherRunnerId) throws Exception {
        return leftovers.of(otherRunnerId);
    }

    /** The executor's own check of the policies it declares ({@link dev.knotless.executor.UntrustedNetwork.Enforcement#POLICY}). */
    public NetworkPolicies policies() {
        return policies;
    }

    /** What the executor does with a run whose runner is gone. */
    public Abandonment abandonment() {
        return abandonment;
    }

    /** A spec for a new run of this test's runner, on the image, with the kill grace. */
    public RunSpec.Builder spec() {
        return RunSpec.builder(runnerId, "run-" + ContractSupport.randomHex(6), image).killGrace(killGrace);
    }

    /** Starts a session that is closed after the test. */
    public Session open() throws ExecutorException {
        return open(spec().build());
    }

    public Session open(RunSpec spec) throws ExecutorException {
        Session s = executor.start(spec, StopSignal.none());
        opened.add(s);
        return s;
    }

    void closeOpened() {
        for (Session s : opened) {
            s.close();
        }
        opened.clear();
    }
}
