package dev.knotless.runner.run.step;

import dev.knotless.plan.Computed;
import dev.knotless.plan.Step;
import dev.knotless.plan.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a plan may hold that this runner does not carry out yet: steps before and after the
 * workflow's own, hashes of files computed as a step starts, and runtimes brought into the run
 * (docs/design/workflows.md says which dialect will write them). A plan that has them is refused
 * rather than run without them, since a post step that never runs or a key never computed could
 * pass a run that should not. Step files and workflow commands, and the other computed values,
 * are carried out ({@code step.protocol}).
 */
final class NotYetCarriedOut {

    private NotYetCarriedOut() {}

    /** Why {@code workflow} cannot be run here, naming each part; empty when it can. */
    static Optional<String> in(Workflow workflow) {
        List<String> parts = new ArrayList<>();
        if (!workflow.prePost().isEmpty()) {
            parts.add("steps before or after its own (pre, post)");
        }
        List<Step> steps = workflow.steps();
        if (steps.stream().anyMatch(s -> s.computedEnv().values().stream().anyMatch(NotYetCarriedOut::hashesFiles))) {
            parts.add("hashes of files computed as a step starts");
        }
        if (steps.stream().anyMatch(s -> s.runtime() != null)) {
            parts.add("a runtime brought into the run");
        }
        return parts.isEmpty() ? Optional.empty()
                : Optional.of("this runner does not carry out " + String.join(", ", parts) + " yet");
    }

    private static boolean hashesFiles(Computed value) {
        return switch (value) {
            case Computed.FilesHash f -> true;
            case Computed.Joined j -> j.parts().stream().anyMatch(NotYetCarriedOut::hashesFiles);
            case Computed.Text t -> false;
            case Computed.StepOutput o -> false;
            case Computed.Evaluated e -> false; // its front-end refused hashFiles() in it when the file was read
        };
    }
}
