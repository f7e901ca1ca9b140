package dev.knotless.runner.state;

import dev.knotless.checks.CheckStatus;

/**
 * Which runs {@link StateStore#runs} lists, newest first.
 *
 * @param repo only this repository's; null for all
 * @param status only runs in this status; null for all
 * @param limit at most this many
 * @param workflow only this workflow's; null for all
 * @param commit only runs at a commit whose sha starts with these (4 to 40 hex digits); null for all
 */
public record Filter(String repo, CheckStatus status, int limit, String workflow, String commit) {

    public Filter {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive: " + limit);
        }
        if (commit != null && !commit.matches("[0-9a-f]{4,40}")) {
            throw new IllegalArgumentException("'" + commit + "' is not a commit: 4 to 40 hex digits");
        }
    }

    public Filter(String repo, CheckStatus status, int limit) {
        this(repo, status, limit, null, null);
    }

    /** The newest 100 runs. */
    public static Filter recent() {
        return new Filter(null, null, 100);
    }

    public Filter repo(String value) {
        return new Filter(value, status, limit, workflow, commit);
    }

    public Filter status(CheckStatus value) {
        return new Filter(repo, value, limit, workflow, commit);
    }

    public Filter limit(int value) {
        return new Filter(repo, status, value, workflow, commit);
    }

    public Filter workflow(String value) {
        return new Filter(repo, status, limit, value, commit);
    }

    public Filter commit(String value) {
        return new Filter(repo, status, limit, workflow, value);
    }
}
