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

    /**
     * Throws {@link Failure.Kind#STOPPED} when {@code signal} has fired, naming the operation
     * ({@code "upload to /work stopped (cancelled)"}); an executor calls it between the stages of an
     * operation, the guard before it starts.
     */
    public static void throwIfStopped(StopSignal signal, String what) throws ExecutorException {
        java.util.Optional<StopSignal.Reason> reason = signal.reason();
        if (reason.isPresent()) {
            throw new ExecutorException(Failure.Kind.STOPPED, what + " stopped (" + reason.get().name().toLowerCase() + ")");
        }
    }

    public Failure failure() {
        return failure;
    }
}
