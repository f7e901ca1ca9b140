package dev.knotless.plan;

import java.util.List;
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
 * @param stateFrom the ids of the steps of its scope whose saved state ({@code GITHUB_STATE}) it
 *     gets as {@code STATE_NAME} variables, a later one's value over an earlier's: a JavaScript
 *     action's {@code main} reads its {@code pre} step's, its {@code post} both (one action's state
 *     is shared by its three stages, as GitHub's runner shares it); empty for none
 */
public record Deferred(@Nullable Computed name, @Nullable Computed run, @Nullable Computed when, List<String> stateFrom) {

    /** Nothing left to the run. */
    public static final Deferred NONE = new Deferred(null, null, null, List.of());

    public Deferred {
        stateFrom = List.copyOf(stateFrom);
    }

    /** Its name, script and condition; no state. */
    public Deferred(@Nullable Computed name, @Nullable Computed run, @Nullable Computed when) {
        this(name, run, when, List.of());
    }

    public boolean any() {
        return name != null || run != null || when != null || !stateFrom.isEmpty();
    }
}
