package dev.knotless.runner.run.record;

import dev.knotless.checks.Check;
import dev.knotless.checks.StepResult;
import dev.knotless.executor.OutputSink;
import dev.knotless.runner.run.request.RunRequest;

/**
 * Watches runs as they go: the CLI prints from it, the daemon streams it.
 *
 * <p>Output arrives already masked. Calls for one run come from one thread at a time; calls for
 * different runs may come from different threads at once.
 */
public interface RunListener {

    default void runStarted(RunRequest run) {}

    /** A line from the runner itself about the run: what it did, why it stopped. */
    default void notice(RunRequest run, String line) {}

    default void stepStarted(RunRequest run, int number, String name) {}

    default void stepOutput(RunRequest run, int number, OutputSink.Stream stream, byte[] buffer, int offset, int length) {}

    default void stepFinished(RunRequest run, int number, StepResult result) {}

    default void runFinished(RunRequest run, Check check) {}

    RunListener NONE = new RunListener() {};
}
