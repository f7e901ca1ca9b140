package dev.knotless.cli;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import java.util.List;

/** What {@code knotless-run exec} exits with (docs/reference/cli.md). */
final class ExitCodes {
    static final int SUCCESS = 0;
    static final int FAILURE = 1;
    static final int USAGE = 2;
    static final int ERROR = 3;

    private ExitCodes() {}

    /**
     * 3 when any check is an error, else 1 when any failed or was cancelled, else 0: a skipped run
     * fails nothing, nor does one that may fail ({@link Check#continuedOnError}).
     */
    static int of(List<Check> checks) {
        if (checks.stream().anyMatch(c -> c.status() == CheckStatus.ERROR && !c.continuedOnError())) {
            return ERROR;
        }
        if (checks.stream().anyMatch(c -> !c.passed() && c.status() != CheckStatus.SKIPPED)) {
            return FAILURE;
        }
        return SUCCESS;
    }
}
