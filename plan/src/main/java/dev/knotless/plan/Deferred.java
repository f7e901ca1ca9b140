package dev.knotless.plan;

import org.jspecify.annotations.Nullable;

/**
 * What of a step the run works out as the step is about to start, from what it knows by then
 * (what the steps before handed back, how they went, the run's facts): each part null when the
 * file decided it, which is always so for ours.
 *
 * @param name the step's name; until it starts, the check shows the name as written
 * @param run its script
 * @param when whether it runs at all, read as a condition is (truthy), once the step's {@link
 *     StepCondition} let it: so {@code success() && steps.a.outputs.ok} is {@code SUCCESS} and
 *     {@code steps.a.outputs.ok}, and {@code failure() || x} is {@code ALWAYS} and itself
 * @param stateFrom the id of the step of its scope whose saved state ({@code GITHUB_STATE}) it gets
 *     as {@code STATE_NAME} variables: a JavaScript action's {@code post} step reads its main
 *     step's; null for none
 */
public record Deferred(@Nullable Computed name, @Nullable Computed run, @Nullable Computed when, @Nullable String stateFrom) {

    /** Nothing left to the run. */
    public static final Deferred NONE = new Deferred(null, null, null, null);

    /** Its name, script and condition; no state. */
    public Deferred(@Nullable Computed name, @Nullable Computed run, @Nullable Computed when) {
        this(name, run, when, null);
    }

    public boolean any() {
        return name != null || run != null || when != null || stateFrom != null;
    }
}
