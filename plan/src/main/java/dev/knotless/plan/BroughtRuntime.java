package dev.knotless.plan;

import java.util.Objects;

/**
 * A program a step needs that the runner brings into the run rather than the image holding it:
 * GitHub Actions' JavaScript actions run on the runner's own Node ({@code runs.using: node20}),
 * which any job's image may lack. Ours brings nothing: a step runs with what its image has.
 *
 * @param name such as {@code node}
 * @param version such as {@code 20}
 */
public record BroughtRuntime(String name, String version) {

    public BroughtRuntime {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(version, "version");
    }
}
