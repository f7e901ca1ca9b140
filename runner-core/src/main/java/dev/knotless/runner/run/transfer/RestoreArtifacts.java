package dev.knotless.runner.run.transfer;

import dev.knotless.cache.CacheStore;
import dev.knotless.cache.Layer;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.phase.Verdict;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.tar.Bounded;
import dev.knotless.time.Durations;
import java.io.IOException;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.tar.Bounded;
import dev.knotless.time.Durations;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Before the steps, puts the artifacts of each run this one needs under {@code
 * /artifacts/<workflow>/} ({@link Artifacts}). A need that saved none is a line in the log; a
 * restore that fails is an {@code error}: the steps would run without what they were promised.
 */
public record RestoreArtifacts(CacheStore store, RunRequest request) implements Phase {

    @Override
    public void run(RunContext run) {
        boolean restored = false;
        for (String need : request.neededRuns()) {
            try {
                // an untrusted run's artifacts ref holds only untrusted runs' artifacts; the scope is
                // the second line, as for caches
                Optional<Layer> layer = request.trust() == dev.knotless.executor.Trust.UNTRUSTED
                        ? store.baseForUntrusted(Artifacts.key(request.repo(), need), Artifacts.ref(request), Artifacts.ref(request))
                        : store.base(Artifacts.key(request.repo(), need), Artifacts.ref(request), Artifacts.ref(request));
                if (layer.isEmpty()) {
                    continue; // it names no artifacts, or saved none: said in its own log
                }
                long started = System.nanoTime();
                run.session().upload(Artifacts.directory(need), store.restore(layer.get()), run.signal());
                restored = true;
                run.log().notice("artifacts of " + need + " in " + Artifacts.directory(need) + " ("
                        + Bounded.bytes(layer.get().bytes()) + " compressed) in "
                        + Durations.human((System.nanoTime() - started) / 1_000_000));
            } catch (ExecutorException e) {
                if (e.failure().kind() != Failure.Kind.STOPPED) {
                    run.verdict().fail(new Verdict(dev.knotless.checks.CheckStatus.ERROR, "artifacts of " + need + " could not be put in"
                            + " the run: " + e.failure().reason()));
                }
                return;
            } catch (IOException | RuntimeException e) {
                run.verdict().fail(new Verdict(dev.knotless.checks.CheckStatus.ERROR, "artifacts of " + need + " could not be read: "
                        + e.getMessage()));
                return;
            }
        }
        if (restored) {
            readOnly(run);
        }
    }

    /**
     * What a need made is read, not changed: write permission is taken away (a step that must change
     * a file copies it). Root in the run can still write; this keeps honest steps honest.
     */
    private static void readOnly(RunContext run) {
        StepOutcome outcome = run.session().run(StepPayload.probe("artifacts read-only",
                List.of("/bin/sh", "-c", "chmod -R a-w " + Artifacts.ROOT)), (stream, buffer, offset, length) -> {}, run.signal());
        if (!(outcome instanceof StepOutcome.Exited e) || e.exitCode() != 0) {
            run.log().notice("artifacts: could not make " + Artifacts.ROOT + " read-only");
        }
    }
}
