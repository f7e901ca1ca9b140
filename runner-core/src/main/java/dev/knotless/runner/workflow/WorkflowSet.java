package dev.knotless.runner.workflow;

import java.util.List;

/**
 * What {@link WorkflowParser#parseAll} found: the valid workflows, sorted by file name, and one
 * error per invalid file, in the same order. A broken file does not hide the others: the caller
 * runs what is valid and reports each error.
 */
public record WorkflowSet(List<Workflow> workflows, List<WorkflowException> errors) {

    public WorkflowSet {
        workflows = List.copyOf(workflows);
        errors = List.copyOf(errors);
    }

    public boolean hasErrors() {
        return !errors.isEmpty();
    }
}
