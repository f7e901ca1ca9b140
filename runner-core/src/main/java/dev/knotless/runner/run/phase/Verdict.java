package dev.knotless.runner.run.phase;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepResult;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Why a run did not succeed: a final check status and its one-line reason (none for a success). */
public record Verdict(CheckStatus status, @Nullable String reason) {

    /** The verdict a step's result gives the run; empty when it passed, was skipped, or failed but may continue on error. */
    public static Optional<Verdict> of(StepResult r) {
        return switch (r.status()) {
            case SUCCESS, SKIPPED -> Optional.empty();
            case FAILURE -> r.continuedOnError() ? Optional.empty()
                    : Optional.of(new Verdict(CheckStatus.FAILURE, "step '" + r.name() + "' " + r.reason()));
            case CANCELLED -> Optional.of(new Verdict(CheckStatus.CANCELLED, r.reason()));
            case ERROR -> Optional.of(new Verdict(CheckStatus.ERROR, "step '" + r.name() + "': " + r.reason()));
        };
    }
}
