package dev.knotless.runner.run.step;

import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Session;
import dev.knotless.runner.run.record.RunLog;
import dev.knotless.runner.run.step.protocol.HandedBack;
import dev.knotless.runner.run.step.protocol.HandedFiles;
import dev.knotless.time.Deadline;
import java.time.Duration;
import java.util.function.Function;

/**
 * After an attempt at a step in a run whose steps hand values back: reads the step's files in one
 * download of their directory ({@link HandedFiles}), also when it failed, takes in what they and
 * its commands handed back ({@link HandedBack}), makes its result show it, and says in the log what
 * went wrong with it. A step that could not be read back, or whose files or commands were refused,
 * fails (its exit code kept), as GitHub's runner fails it.
 *
 * <p>Outside the step's output (the masking link), so its lines follow the step's last line; and
 * outside the cleanup of a step with secrets, so the step's processes have stopped writing to the
 * files by the time they are read. Not for a step that errored or was cancelled: it may never have
 * made its files, and the run is ending.
 *
 * @param deadlineIn a deadline that far off on the run's clock, for the download
 */
record HandBack(HandedBack handed, Session session, RunLog log, Function<Duration, Deadline> deadlineIn) implements StepLink {

    /** What every executor says of a download of a directory that is not there (the contract's {@code TransferContract}). */
    static final String GONE = "no such directory in the run";

    /** How long reading a step's files back may take: 6 MiB at most, in one archive. */
    static final Duration READING = Duration.ofMinutes(1);

    @Override
    public StepResult run(StepCall call, Next next) {
        if (!handed.any()) {
            return next.run(call);
        }
        StepResult result = next.run(call);
        if (handed.layout().any() && (result.status() == StepStatus.SUCCESS || result.status() == StepStatus.FAILURE)) {
            read(call);
        }
        StepResult shown = call.report().applyTo(result, call.step().continueOnError(), log.masks());
        call.report().notices().forEach(line -> log.notice("step " + call.number() + " '" + call.step().name() + "': " + line));
        return shown;
    }

    private void read(StepCall call) {
        HandedFiles files = new HandedFiles(handed.layout(), deadlineIn.apply(READING));
        try {
            session.download(handed.layout().dir(call.number()), files, call.signal());
        } catch (ExecutorException e) {
            if (e.failure().kind() == Failure.Kind.STOPPED) {
                return; // a stopped run reads nothing more
            }
            if (e.failure().kind() == Failure.Kind.INFRASTRUCTURE && e.failure().reason().contains(GONE)) {
                // the step removed them (a clean-up of /tmp): as GitHub's runner, whose files are then missing
                call.report().notice("its files were gone when it ended: nothing it wrote to them was read back");
                return;
            }
            call.report().fail("handed back files that " + (e.failure().kind() == Failure.Kind.LIMIT ? "were refused"
                    : "could not be read") + ": " + e.failure().reason());
            return;
        }
        handed.takeFiles(call.number(), files.files(), call.report());
    }
}
