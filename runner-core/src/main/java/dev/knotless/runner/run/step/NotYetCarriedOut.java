package dev.knotless.runner.run.step;

import dev.knotless.plan.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a plan may hold that this runner does not carry out yet: steps before and after the
 * workflow's own (docs/design/workflows.md says which dialect will write them). A plan that has them is refused rather than run without them, since a post
 * step that never runs could pass a run that should not. Step files and workflow commands ({@code
 * step.protocol}) and computed values, hashes of files among them ({@code step.evaluate}), are
 * carried out, and so are runtimes brought into the run ({@code run.runtime}).
 */
final class NotYetCarriedOut {

    private NotYetCarriedOut() {}

    /** Why {@code workflow} cannot be run here, naming each part; empty when it can. */
    static Optional<String> in(Workflow workflow) {
        List<String> parts = new ArrayList<>();
        if (!workflow.prePost().isEmpty()) {
            parts.add("steps before or after its own (pre, post)");
        }
        return parts.isEmpty() ? Optional.empty()
                : Optional.of("this runner does not carry out " + String.join(", ", parts) + " yet");
    }
}
