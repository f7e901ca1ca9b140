package dev.knotless.runner.run.record;

import dev.knotless.checks.Check;
import dev.knotless.checks.StepResult;
import dev.knotless.executor.OutputSink;
import dev.knotless.runner.run.request.RunRequest;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The run's listener, also recording the running check after each step with the steps ended so
 * far, so a forge shows a run as it goes, not only at its start and end. The step results come
 * masked (this sits behind the masking); the check is masked as every check is.
 */
public final class RunningCheck implements RunListener {

    private final RunRequest request;
    private final Check running;
    private final RunMasking masking;
    private final CheckRecorder checks;
    private final RunListener listener;
    private final List<StepResult> ended = new CopyOnWriteArrayList<>();

    /**
     * @param running the run's check as it was recorded running
     * @param listener told everything, before the check is recorded again
     */
    public RunningCheck(RunRequest request, Check running, RunMasking masking, CheckRecorder checks, RunListener listener) {
        this.request = request;
        this.running = running;
        this.masking = masking;
        this.checks = checks;
        this.listener = listener;
    }

    @Override
    public void runStarted(RunRequest run) {
        listener.runStarted(run);
    }

    @Override
    public void notice(RunRequest run, String line) {
        listener.notice(run, line);
    }

    @Override
    public void stepStarted(RunRequest run, int number, String name) {
        listener.stepStarted(run, number, name);
    }

    @Override
    public void stepOutput(RunRequest run, int number, OutputSink.Stream stream, byte[] buffer, int offset, int length) {
        listener.stepOutput(run, number, stream, buffer, offset, length);
    }

    @Override
    public void stepFinished(RunRequest run, int number, StepResult result) {
        listener.stepFinished(run, number, result);
        if (run.runId().equals(request.runId())) {
            ended.add(result);
            checks.progress(masking.check(running.withStepsSoFar(List.copyOf(ended))));
        }
    }

    @Override
    public void runFinished(RunRequest run, Check check) {
        listener.runFinished(run, check);
    }
}
