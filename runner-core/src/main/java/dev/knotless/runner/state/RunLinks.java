package dev.knotless.runner.state;

import java.util.List;
import java.util.Objects;

/**
 * Where a queued run stands in its commit's run graph: what it waits for, and the matrix group it
 * belongs to. The queue takes a run only once every run it needs (same repository, commit and
 * event) has passed, and no more of a group at once than its {@code maxParallel}.
 *
 * @param needs the workflow names (as checks carry them) of the runs it waits for
 * @param group its matrix group (the workflow's name as written); its own name without a matrix
 * @param maxParallel at most this many of the group run at once; 0 for no limit
 * @param failFast the first of the group to fail cancels the others
 */
public record RunLinks(List<String> needs, String group, int maxParallel, boolean failFast) {

    public RunLinks {
        needs = List.copyOf(needs);
        Objects.requireNonNull(group, "group");
    }

    /** Whether there is anything for the queue to wait for or limit. */
    public boolean constrains() {
        return !needs.isEmpty() || maxParallel > 0;
    }
}
