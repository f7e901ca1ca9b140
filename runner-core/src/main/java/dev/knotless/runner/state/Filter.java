package dev.knotless.runner.state;

import dev.knotless.checks.CheckStatus;

/**
 * Which runs {@link StateStore#runs} lists, newest first.
 *
 * @param repo only this repository's; null for all
 * @param status only runs in this status; null for all
 * @param limit at most this many
 */
public record Filter(String repo, CheckStatus status, int limit) {

    public Filter {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive: " + limit);
        }
    }

    /** The newest 100 runs. */
    public static Filter recent() {
        return new Filter(null, null, 100);
    }

    public Filter repo(String value) {
        return new Filter(value, status, limit);
    }

    public Filter status(CheckStatus value) {
        return new Filter(repo, value, limit);
    }

    public Filter limit(int value) {
        return new Filter(repo, status, value);
    }
}
