package dev.knotless.runner.run.transfer;

import dev.knotless.plan.Step;
import dev.knotless.plan.StepFiles;
import dev.knotless.plan.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a plan may hold that this runner does not carry out yet: steps before and after the
 * workflow's own, files through which steps hand values back, values computed at run time, and
 * runtimes brought into the run. No dialect writes them yet (docs/design/workflows.md says which
 * will); a plan that has them is refused rather than run without them, since a post step that
 * never runs or a value never computed could pass a run that should not.
 */
final class NotYetCarriedOut {

    private NotYetCarriedOut() {}

    /** Why {@code workflow} cannot be run here, naming each part; empty when it can. */
    static Optional<String> in(Workflow workflow) {
        List<String> parts = new ArrayList<>();
        if (!workflow.prePost().isEmpty()) {
            parts.add("steps before or after its own (pre, post)");
        }
        if (!workflow.stepFiles().equals(StepFiles.NONE)) {
            parts.add("files through which steps hand values back");
        }
        List<Step> steps = workflow.steps();
        if (steps.stream().anyMatch(s -> !s.computedEnv().isEmpty())) {
            parts.add("values computed as a step starts");
        }
        if (steps.stream().anyMatch(s -> s.runtime() != null)) {
            parts.add("a runtime brought into the run");
        }
        return parts.isEmpty() ? Optional.empty()
                : Optional.of("this runner does not carry out " + String.join(", ", parts) + " yet");
    }
}
