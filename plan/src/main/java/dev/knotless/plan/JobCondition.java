package dev.knotless.plan;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * When a run of a graph starts, given how the runs it needs ended: GitHub's job {@code if}. The
 * plan's words are a step's ({@link StepCondition}), read over the needed runs instead of the steps
 * before: {@code SUCCESS} starts it once every run it needs passed (and ends it {@code cancelled}
 * when one did not, as for every workflow of ours); any other gate starts it once they all ended,
 * however, and then decides: {@code FAILURE} runs it when one of them failed, {@code CANCELLED}
 * when one was cancelled, {@code ALWAYS} whatever.
 *
 * @param gate what the needed runs must have done
 * @param also what the run evaluates once the gate let it through, before its environment is made
 *     (read as a condition is, truthy); null for nothing. False, the run ends {@code skipped}.
 */
public record JobCondition(StepCondition gate, @Nullable Computed also) {

    /** Every run it needs passed: the rule of every workflow without a condition. */
    public static final JobCondition NEEDS_PASSED = new JobCondition(StepCondition.SUCCESS, null);

    public JobCondition {
        Objects.requireNonNull(gate, "gate");
    }

    /** Whether it starts only once every run it needs passed. */
    public boolean needsPassed() {
        return gate == StepCondition.SUCCESS;
    }
}
