package dev.knotless.cli;

import dev.knotless.runner.run.runtime.Runtimes;
import dev.knotless.time.Ticker;
import dev.knotless.cache.CacheStore;
import dev.knotless.checks.CheckStore;
import dev.knotless.executor.Executor;
import dev.knotless.runner.run.record.CheckRecorder;
import dev.knotless.runner.run.Run;
import dev.knotless.runner.run.environment.ImagePins;
import dev.knotless.runner.run.recovery.RunJournal;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.run.record.RunListener;
import dev.knotless.secrets.SecretStore;
import java.nio.file.Path;
import java.time.Clock;

/** How a {@link Run} is built from the state dir: its check recorder, caches and the given secrets, in one place. */
final class RunWiring {

    private RunWiring() {}

    /**
     * @param cacheBudget the total size of stored cache layers, in bytes
     * @param journal where going runs record their progress ({@link RunJournal#NONE} for one-shot runs)
     */
    static Run run(Executor executor, Path stateDir, CheckRecorder checks, SecretStore secrets, RunListener listener,
            RunLimits limits, long cacheBudget, RunJournal journal, Clock clock, Runtimes runtimes, ImagePins pins) {
        CacheStore caches = new CacheStore(stateDir.resolve("cache"), cacheBudget, clock);
        return new Run(executor, checks, secrets, caches, listener, limits, journal, clock, Ticker.SYSTEM, runtimes, pins);
    }

    /** A one-shot run's: check files only, in no queue and shown by no forge. */
    static Run oneShot(Executor executor, Path stateDir, SecretStore secrets, RunListener listener, RunLimits limits,
            long cacheBudget, Clock clock, Runtimes runtimes, ImagePins pins) {
        return run(executor, stateDir, CheckRecorder.filesOnly(new CheckStore(stateDir)), secrets, listener, limits,
                cacheBudget, RunJournal.NONE, clock, runtimes, pins);
    }
}
