package dev.knotless.runner.state;

import java.util.List;
import java.util.Objects;

/**
 * Where a queued run stands in its commit's run graph: what it waits for, and the matrix group it
 * belongs to. The queue takes a run only once every run it needs (same repository, commit and
 * event) has passed (or, for a run whose condition starts it whatever they did, has ended), and no
 * more of a group at once than its {@code maxParallel}.
 *
 * @param needs the workflow names (as checks carry them) of the runs it waits for
 * @param group its matrix group (the workflow's name as written); its own name without a matrix
 * @param maxParallel at most this many of the group run at once; 0 for no limit
 * @param failFast the first of the group to fail cancels the others
 * @param whateverNeedsDid taken once every run it needs ended, however (GitHub's {@code if:
 *     always()} and the other status functions); false for runs taken only after they passed
 */
public record RunLinks(List<String> needs, String group, int maxParallel, boolean failFast, boolean whateverNeedsDid) {

    public RunLinks {
        needs = List.copyOf(needs);
        Objects.requireNonNull(group, "group");
    }

    /** Links of a run that waits for its needs to pass. */
    public RunLinks(List<String> needs, String group, int maxParallel, boolean failFast) {
        this(needs, group, maxParallel, failFast, false);
    }

    /** Whether there is anything for the queue to wait for or limit. */
    public boolean constrains() {
        return !needs.isEmpty() || maxParallel > 0;
    }
}
