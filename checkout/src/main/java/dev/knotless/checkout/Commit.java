package dev.knotless.checkout;

import java.util.Objects;

/**
 * A commit as a revision resolved to it.
 *
 * @param sha the full object name (40 hex digits, or 64 in a SHA-256 repository)
 * @param ref the full ref name when the revision named a branch or tag ({@code refs/heads/main},
 *     {@code refs/tags/v1.0}), or was {@code HEAD} and the source's HEAD is a branch; otherwise
 *     the sha again
 */
public record Commit(String sha, String ref) {

    public Commit {
        Objects.requireNonNull(sha, "sha");
        Objects.requireNonNull(ref, "ref");
    }

    /** Whether the revision was a branch or tag rather than a commit expression. */
    public boolean isRef() {
        return ref.startsWith("refs/");
    }
}
