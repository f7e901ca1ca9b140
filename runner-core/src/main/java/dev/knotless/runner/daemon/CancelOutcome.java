package dev.knotless.runner.daemon;

/** What {@link Daemon#cancel} did. */
public enum CancelOutcome {
    /** The run was waiting; it has ended {@code cancelled}. */
    CANCELLED,
    /** The run goes in this process; it was told to stop and ends when its steps do. */
    CANCELLING,
    /** Nothing to cancel here: the run ended, or it runs in another process. */
    NOT_GOING
}
