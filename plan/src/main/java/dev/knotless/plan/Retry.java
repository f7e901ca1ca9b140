package dev.knotless.plan;

import java.util.Set;
import java.util.TreeSet;

/**
 * A step's {@code retry}: how many more times a failed step runs, and on which exit codes.
 *
 * @param max how many attempts after the first, 1 to {@value #MOST}
 * @param exitCodes the exit codes that are tried again; empty for any failure, a step's own
 *     timeout included
 */
public record Retry(int max, Set<Integer> exitCodes) {

    /** More attempts than this only hide a broken step. */
    public static final int MOST = 10;

    public Retry {
        if (max < 1 || max > MOST) {
            throw new IllegalArgumentException("retry max must be 1.." + MOST + ", was " + max);
        }
        exitCodes = java.util.Collections.unmodifiableSet(new TreeSet<>(exitCodes));
    }

    /** Whether an attempt that ended with {@code exitCode} (null: stopped at its timeout) is tried again. */
    public boolean covers(@org.jspecify.annotations.Nullable Integer exitCode) {
        return exitCodes.isEmpty() || exitCode != null && exitCodes.contains(exitCode);
    }
}
