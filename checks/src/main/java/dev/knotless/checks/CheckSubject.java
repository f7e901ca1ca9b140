package dev.knotless.checks;

import java.util.Objects;

/**
 * What a check is about, whatever its status: one run of one workflow on one commit, by one
 * runner and executor. The named factories of {@link Check} make checks from it.
 *
 * @param id the run id, also the check id
 * @param ref the full ref the commit was reached by, or the sha
 */
public record CheckSubject(String id, String repo, String commit, String ref, String workflow, Event event,
        String runner, ExecutorName executor) {

    public CheckSubject {
        Objects.requireNonNull(id, "id");
    }
}
