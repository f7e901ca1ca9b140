package dev.knotless.checks;

import java.util.List;

/**
 * What a passing run saved for the workflows that need it ({@code artifacts:}).
 *
 * @param paths the paths under /work its patterns matched, at most {@link #LISTED}, in the order found
 * @param bytes the stored archive's size, compressed
 */
public record SavedArtifacts(List<String> paths, long bytes) {

    /** How many paths a check lists; the archive holds them all. */
    public static final int LISTED = 100;

    public SavedArtifacts {
        paths = List.copyOf(paths);
    }
}
