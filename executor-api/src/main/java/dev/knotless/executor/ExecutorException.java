package dev.knotless.executor;

/** An executor operation failed; {@link #failure()} says why in one line. */
public class ExecutorException extends Exception {

    private final Failure failure;

    public ExecutorException(Failure failure) {
        super(failure.reason());
        this.failure = failure;
    }

    public ExecutorException(Failure failure, Throwable cause) {
        super(failure.reason(), cause);
        this.failure = failure;
    }

    public ExecutorException(Failure.Kind kind, String reason) {
        this(new Failure(kind, reason));
    }

    public Failure failure() {
        return failure;
    }
}
