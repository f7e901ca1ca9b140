package dev.knotless.atproto;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.CheckSubject;
import dev.knotless.checks.Event;
import dev.knotless.checks.ExecutorName;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import java.time.Instant;
import java.util.List;

/** Checks for the tests: one run going, and ended. */
final class Checks {

    static final Instant START = Instant.parse("2026-12-03T10:00:00Z");

    private Checks() {}

    static CheckSubject subject(String runId) {
        return new CheckSubject(runId, "alice/hello", "0123456789abcdef0123456789abcdef01234567", "refs/heads/main", "unit",
                Event.PUSH, "runner-1", new ExecutorName("docker"));
    }

    static Check running(String runId) {
        return Check.running(subject(runId), START, null);
    }

    static Check ended(String runId, CheckStatus status, String log) {
        return Check.running(subject(runId), START, log).finished(status, status == CheckStatus.SUCCESS ? null : "step test exited 3",
                START.plusSeconds(42), List.of(
                        new StepResult("build", StepStatus.SUCCESS, 0, 1200, null),
                        new StepResult("test", status == CheckStatus.SUCCESS ? StepStatus.SUCCESS : StepStatus.FAILURE,
                                status == CheckStatus.SUCCESS ? 0 : 3, 800, status == CheckStatus.SUCCESS ? null : "exited 3"),
                        StepResult.skipped("deploy")),
                List.of());
    }
}
