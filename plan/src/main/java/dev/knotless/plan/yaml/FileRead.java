package dev.knotless.plan.yaml;

import dev.knotless.plan.Workflow;
import dev.knotless.plan.yaml.YamlTree.Position;
import java.util.List;
import java.util.Objects;

/**
 * What a front-end read from one file: the workflow as written, the runs it makes, and where the
 * file wrote what only the commit's whole set can check, so that those errors point at the file's
 * own line.
 *
 * @param workflow as written, before its matrix is expanded; its name is what {@code needs} calls it
 * @param runs its combinations, or itself when it has no matrix
 * @param nameAt where the name was written; the file's start when it gives none
 * @param nameGiven whether the file names the workflow (else its name comes from the file's)
 * @param needsAt where each of {@link Workflow#needs()} was written, in the same order
 */
public record FileRead(Workflow workflow, List<Workflow> runs, Position nameAt, boolean nameGiven, List<Position> needsAt) {

    public FileRead {
        Objects.requireNonNull(workflow, "workflow");
        runs = List.copyOf(runs);
        Objects.requireNonNull(nameAt, "nameAt");
        needsAt = List.copyOf(needsAt);
    }
}
