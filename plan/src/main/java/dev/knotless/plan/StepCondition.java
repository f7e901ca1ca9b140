package dev.knotless.plan;

/**
 * A step's {@code if}: when it runs, given how the steps before it went. The words are GitHub
 * Actions' and Forgejo's, so that a moved workflow reads the same.
 */
public enum StepCondition {
    /** {@code success()}, the default: every step before it passed, and the run was not stopped. */
    SUCCESS("success()"),
    /** {@code failure()}: a step before it failed (not counting one that may continue on error). */
    FAILURE("failure()"),
    /** {@code always()}: whatever happened before, even a cancel; not past the run's deadline. */
    ALWAYS("always()"),
    /** {@code cancelled()}: the run was cancelled; not past the run's deadline. */
    CANCELLED("cancelled()");

    private final String expression;

    StepCondition(String expression) {
        this.expression = expression;
    }

    /** As written in a workflow. */
    public String expression() {
        return expression;
    }
}
