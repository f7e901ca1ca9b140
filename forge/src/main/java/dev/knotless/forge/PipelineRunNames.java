package dev.knotless.forge;

import java.util.List;
import java.util.Objects;

/**
 * The ids the daemon gives the runs it plans for a pipeline a forge sent ({@link ForgeEvent.Pipeline}),
 * known before it plans them. A forge that tells a status per run as soon as the pipeline comes (the
 * spindle's {@code pending}) must name each run the way the daemon will, without working the names
 * out itself: the daemon's planner implements this, and is the only place the scheme lives.
 */
@FunctionalInterface
public interface PipelineRunNames {

    /**
     * The runs {@code pipeline} makes, in the daemon's order: a workflow file that does not parse is
     * one run by its file name, a matrix one run per combination.
     */
    List<RunName> of(ForgeEvent.Pipeline pipeline);

    /**
     * @param workflow the workflow's name (a broken file's name)
     * @param runId the id the run is queued, checked and logged under
     */
    record RunName(String workflow, String runId) {
        public RunName {
            Objects.requireNonNull(workflow, "workflow");
            Objects.requireNonNull(runId, "runId");
        }
    }
}
