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

    /**
     * The variable that lists, as {@code FROM=TO} pairs split by spaces, the variables a brought
     * runtime renames before the program starts: a step can then be given variables whose names no
     * shell takes ({@code INPUT_NODE-VERSION}, which GitHub's {@code @actions/core} reads) while
     * every executor still hands it only shell names. It names variables, never values.
     */
    public static final String RENAMES = "KNOTLESS_RENAME";

    public BroughtRuntime {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(version, "version");
    }
}
