package dev.knotless.runner.run.phase;

import dev.knotless.checks.Check;
import dev.knotless.checks.Output;
import dev.knotless.checks.SavedArtifacts;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.TestSummary;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What a run's phases found, which its final check carries beside the verdict: each phase adds
 * its own part ({@link Phase#addTo}).
 *
 * @param tests what the run's JUnit reports say; null when it read none
 * @param artifacts what the run saved for the workflows that need it; null when it saved nothing
 * @param summary where the steps' summary is on the runner host; null when no step handed one back
 * @param jobOutputs what the run hands to the runs that need it
 * @param images the images the environment was made of, as named to as pinned ({@code Check#images})
 */
public record Findings(List<StepResult> steps, List<Output> outputs, @Nullable TestSummary tests,
        @Nullable SavedArtifacts artifacts, @Nullable String summary, Map<String, String> jobOutputs,
        Map<String, String> images) {

    public static final Findings NONE = new Findings(List.of(), List.of(), null, null, null, Map.of(), Map.of());

    public Findings {
        steps = List.copyOf(steps);
        outputs = List.copyOf(outputs);
        jobOutputs = Collections.unmodifiableMap(new LinkedHashMap<>(jobOutputs));
        images = Collections.unmodifiableMap(new LinkedHashMap<>(images));
    }

    public Findings withImages(Map<String, String> value) {
        return new Findings(steps, outputs, tests, artifacts, summary, jobOutputs, value);
    }

    public Findings withSteps(List<StepResult> value) {
        return new Findings(value, outputs, tests, artifacts, summary, jobOutputs, images);
    }

    public Findings withOutputs(List<Output> value) {
        return new Findings(steps, value, tests, artifacts, summary, jobOutputs, images);
    }

    public Findings withTests(@Nullable TestSummary value) {
        return new Findings(steps, outputs, value, artifacts, summary, jobOutputs, images);
    }

    public Findings withArtifacts(@Nullable SavedArtifacts value) {
        return new Findings(steps, outputs, tests, value, summary, jobOutputs, images);
    }

    public Findings withSummary(@Nullable String value) {
        return new Findings(steps, outputs, tests, artifacts, value, jobOutputs, images);
    }

    public Findings withJobOutputs(Map<String, String> value) {
        return new Findings(steps, outputs, tests, artifacts, summary, value, images);
    }

    /** {@code running} as a final check with {@code verdict} at {@code at}, carrying what was found. */
    public Check finish(Check running, Verdict verdict, Instant at) {
        return running.finished(verdict.status(), verdict.reason(), at, steps, outputs).withTests(tests).withArtifacts(artifacts)
                .withSummary(summary).withJobOutputs(jobOutputs).withImages(images);
    }
}
