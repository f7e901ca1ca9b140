package dev.knotless.runner.run.record;

import dev.knotless.checks.Check;
import dev.knotless.checks.Output;
import dev.knotless.checks.StepResult;
import dev.knotless.executor.OutputSink;
import dev.knotless.plan.Workflow;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.secrets.Masker;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The run's masker over everything the runner itself writes about the run, not only step output:
 * a workflow names its steps, a step names its output files, and a reason may quote a command
 * line or a file name, so any of them can hold a granted value. Every sink a run writes to (the
 * log, the check file and row, the journal, the listeners behind the console, the live API and
 * its event stream) gets what passed through here: a run records only {@link #check}ed
 * checks, tells only the {@link #listener}, and the {@link RunLog} masks its own notices.
 */
public record RunMasking(Masker masker) {

    public static final RunMasking NONE = new RunMasking(Masker.none());

    public String line(String text) {
        return masker.mask(text);
    }

    @Nullable String lineOrNull(@Nullable String text) {
        return text == null ? null : masker.mask(text);
    }

    public StepResult step(StepResult r) {
        Map<String, String> outputs = new LinkedHashMap<>();
        r.outputs().forEach((k, v) -> outputs.put(line(k), line(v)));
        return r.withText(line(r.name()), lineOrNull(r.reason())).afterAttempts(r.attempts().stream()
                .map(a -> new StepResult.Attempt(a.exitCode(), a.durationMs(), lineOrNull(a.reason()))).toList())
                .withHandedBack(outputs, r.annotations().stream()
                        .map(a -> a.withText(line(a.message()), lineOrNull(a.file()), lineOrNull(a.title()))).toList());
    }

    public List<StepResult> steps(List<StepResult> results) {
        return results.stream().map(this::step).toList();
    }

    public Output output(Output o) {
        return new Output(line(o.name()), o.mediaType(), o.bytes(), line(o.path()));
    }

    /** {@code c} with every text the run or its workflow wrote masked; ids and times are the runner's own. */
    public Check check(Check c) {
        return new Check(c.id(), lineOrNull(c.repo()), c.commit(), lineOrNull(c.ref()), lineOrNull(c.workflow()), c.event(), c.runner(),
                c.executor(), c.status(), lineOrNull(c.reason()), c.startedAt(), c.finishedAt(), steps(c.steps()),
                c.outputs().stream().map(this::output).toList(), c.log(), tests(c.tests()), c.scheduled(),
                c.artifacts() == null ? null : new dev.knotless.checks.SavedArtifacts(
                        c.artifacts().paths().stream().map(this::line).toList(), c.artifacts().bytes()), c.summary(),
                // left out as they were worked out when they held a masked value: what is kept is whole
                c.jobOutputs(), c.continuedOnError(), images(c.images()), lineOrNull(c.runName()));
    }

    private Map<String, String> images(@org.jspecify.annotations.Nullable Map<String, String> images) {
        Map<String, String> shown = new LinkedHashMap<>();
        if (images != null) {
            images.forEach((asked, pinned) -> shown.put(line(asked), line(pinned)));
        }
        return shown;
    }

    /** A test summary's names, messages and notes are the run's output: masked like it. */
    private dev.knotless.checks.@org.jspecify.annotations.Nullable TestSummary tests(
            dev.knotless.checks.@org.jspecify.annotations.Nullable TestSummary t) {
        if (t == null) {
            return null;
        }
        return new dev.knotless.checks.TestSummary(t.files(), t.tests(), t.failures(), t.errors(), t.skipped(), t.timeMs(),
                t.failed().stream().map(f -> new dev.knotless.checks.TestSummary.FailedTest(line(f.className()), line(f.name()),
                        line(f.message()), f.error())).toList(),
                t.notes().stream().map(this::line).toList());
    }

    /**
     * {@code r} as listeners may show it: its workflow's name, image, variables and step names
     * masked (the live API lists the steps before they run). Only for showing, never for running.
     */
    public RunRequest shown(RunRequest r) {
        Workflow w = r.workflow();
        Map<String, String> variables = new LinkedHashMap<>();
        w.variables().forEach((k, v) -> variables.put(line(k), line(v)));
        Workflow masked = w.with(line(w.name()), line(w.file()), w.image() == null ? null : line(w.image()), w.timeout(),
                w.resources(), variables, w.cache().stream().map(this::line).toList(),
                w.steps().stream().map(st -> st.withText(line(st.name()), line(st.run()))).toList());
        Map<String, String> callerVariables = new LinkedHashMap<>();
        r.variables().forEach((k, v) -> callerVariables.put(line(k), line(v)));
        return new RunRequest(r.runId(), r.runnerId(), line(r.repo()), r.commit(), lineOrNull(r.ref()), lineOrNull(r.defaultRef()),
                r.event(), r.trust(), masked, r.checkout(), callerVariables, lineOrNull(r.defaultImage()), r.keep());
    }

    /**
     * {@code downstream} as it is told of the run {@code request}: the request {@link #shown},
     * names, notices, results and checks masked; step output arrives masked already.
     */
    public RunListener listener(RunRequest request, RunListener downstream) {
        RunRequest shown = shown(request);
        return new RunListener() {
            private RunRequest show(RunRequest run) {
                return run == request ? shown : shown(run);
            }

            @Override
            public void runStarted(RunRequest run) {
                downstream.runStarted(show(run));
            }

            @Override
            public void notice(RunRequest run, String line) {
                downstream.notice(show(run), line(line));
            }

            @Override
            public void stepStarted(RunRequest run, int number, String name) {
                downstream.stepStarted(show(run), number, line(name));
            }

            @Override
            public void stepOutput(RunRequest run, int number, OutputSink.Stream stream, byte[] buffer, int offset,
                    int length) {
                downstream.stepOutput(show(run), number, stream, buffer, offset, length);
            }

            @Override
            public void stepFinished(RunRequest run, int number, StepResult result) {
                downstream.stepFinished(show(run), number, step(result));
            }

            @Override
            public void runFinished(RunRequest run, Check check) {
                downstream.runFinished(show(run), check(check));
            }
        };
    }
}
