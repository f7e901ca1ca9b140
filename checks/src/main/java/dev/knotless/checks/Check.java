package dev.knotless.checks;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The result of one workflow run on one commit (docs/reference/check.md).
 *
 * @param id unique, also the run id the executor labels with
 * @param reason one line when the check is not a success, else null
 * @param log where the capped, masked log is on the runner host
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record Check(
        String id,
        String repo,
        String commit,
        String ref,
        String workflow,
        String event,
        String runner,
        String executor,
        CheckStatus status,
        String reason,
        Instant startedAt,
        Instant finishedAt,
        List<StepResult> steps,
        List<Output> outputs,
        String log) {

    public Check {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(status, "status");
        steps = List.copyOf(steps);
        outputs = List.copyOf(outputs);
    }

    public Check withStatus(CheckStatus newStatus, String newReason) {
        return new Check(id, repo, commit, ref, workflow, event, runner, executor, newStatus, newReason,
                startedAt, finishedAt, steps, outputs, log);
    }
}
