package dev.knotless.runner.run.step.evaluate;

import dev.knotless.checks.CheckStatus;
import dev.knotless.plan.Computed;
import dev.knotless.plan.JobCondition;
import dev.knotless.plan.expression.ExpressionException;
import dev.knotless.runner.run.request.NeededRun;
import dev.knotless.secrets.Grants;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Whether a run starts, by its workflow's {@link JobCondition} over how the runs it needs ended
 * and the run's facts: decided before anything of it is made, so a run that does not start costs
 * no environment. Above the executor seam: every executor's runs are decided here alike.
 */
public final class StartCondition {

    private StartCondition() {}

    /** Why the run does not start, and how it ends for that. */
    public record NotStarting(CheckStatus ending, String reason) {}

    /**
     * Empty when the run starts; else {@code skipped} with the condition that said no, or {@code
     * failure} when the condition could not be evaluated.
     *
     * @param runVariables the variables every step of the run gets, which the condition may read
     */
    public static Optional<NotStarting> decide(JobCondition condition, RunFacts facts, Map<String, String> runVariables) {
        if (condition.equals(JobCondition.NEEDS_PASSED)) {
            return Optional.empty();
        }
        RunStatus status = RunStatus.ofNeeds(facts.needed().stream().map(NeededRun::status).toList());
        boolean through = switch (condition.gate()) {
            case SUCCESS -> status.success();
            case FAILURE -> status.failure();
            case CANCELLED -> status.cancelled();
            case ALWAYS -> true;
        };
        if (!through) {
            return Optional.of(new NotStarting(CheckStatus.SKIPPED, "its condition " + condition.gate().expression()
                    + " is false for how the runs it needs ended"));
        }
        if (condition.also() == null) {
            return Optional.empty();
        }
        var values = new StepValues(facts, List.of(), List.of(), Handed.NOTHING, Grants.Granted.NONE, runVariables,
                status, NO_FILES_YET);
        try {
            return values.holds(condition.also()) ? Optional.empty()
                    : Optional.of(new NotStarting(CheckStatus.SKIPPED, condition.also() instanceof Computed.Evaluated e
                            ? "its condition '" + e.text() + "' is false" : "its condition is false, as its file decides"));
        } catch (StepValues.Unresolved e) {
            return Optional.of(new NotStarting(CheckStatus.FAILURE, "its condition " + e.getMessage()
                    .replaceFirst("^its condition ", "")));
        }
    }

    /**
     * What {@code runName} (the workflow's {@code run-name}) says for this run, worked out before it
     * starts; null when it names none or reads what could not be worked out (the run keeps its name).
     */
    public static @Nullable String runName(@Nullable Computed runName, RunFacts facts, Map<String, String> runVariables) {
        if (runName == null) {
            return null;
        }
        var values = new StepValues(facts, List.of(), List.of(), Handed.NOTHING, Grants.Granted.NONE, runVariables,
                RunStatus.ofNeeds(facts.needed().stream().map(NeededRun::status).toList()), NO_FILES_YET);
        try {
            String text = values.text(runName, "run name").strip();
            return text.isEmpty() ? null : text;
        } catch (StepValues.Unresolved e) {
            return null;
        }
    }

    /** The workspace before the run: nothing to hash (the front-end refuses hashFiles in a run's condition too). */
    private static final WorkspaceFiles NO_FILES_YET = new WorkspaceFiles() {
        @Override
        public List<String> list() throws ExpressionException {
            throw notThereYet();
        }

        @Override
        public Map<String, byte[]> hashes(List<String> files) throws ExpressionException {
            throw notThereYet();
        }

        @Override
        public String directory() {
            return "/";
        }

        private ExpressionException notThereYet() {
            return new ExpressionException("hashFiles() reads the run's files, which are not there before it starts", -1);
        }
    };
}
