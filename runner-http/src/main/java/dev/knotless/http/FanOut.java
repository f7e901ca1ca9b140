package dev.knotless.http;

import dev.knotless.checks.Check;
import dev.knotless.checks.StepResult;
import dev.knotless.executor.OutputSink;
import dev.knotless.runner.run.record.RunListener;
import dev.knotless.runner.run.request.RunRequest;
import java.util.List;

/** Several run listeners as one, called in order: the live-output hub and the step timer. */
public record FanOut(List<RunListener> listeners) implements RunListener {

    public FanOut {
        listeners = List.copyOf(listeners);
    }

    public static RunListener of(RunListener... listeners) {
        return new FanOut(List.of(listeners));
    }

    @Override
    public void runStarted(RunRequest run) {
        listeners.forEach(l -> l.runStarted(run));
    }

    @Override
    public void notice(RunRequest run, String line) {
        listeners.forEach(l -> l.notice(run, line));
    }

    @Override
    public void stepStarted(RunRequest run, int number, String name) {
        listeners.forEach(l -> l.stepStarted(run, number, name));
    }

    @Override
    public void stepOutput(RunRequest run, int number, OutputSink.Stream stream, byte[] buffer, int offset, int length) {
        listeners.forEach(l -> l.stepOutput(run, number, stream, buffer, offset, length));
    }

    @Override
    public void stepFinished(RunRequest run, int number, StepResult result) {
        listeners.forEach(l -> l.stepFinished(run, number, result));
    }

    @Override
    public void runFinished(RunRequest run, Check check) {
        listeners.forEach(l -> l.runFinished(run, check));
    }
}
