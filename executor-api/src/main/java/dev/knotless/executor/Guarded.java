package dev.knotless.executor;

/**
 * Where every caller gets its executor from: {@link #executor} wraps one so that the rules every
 * executor obeys are applied once, above the seam, instead of by each executor's sessions.
 *
 * <p>The rules, in the order they are applied (docs/design/executors.md):
 *
 * <ol>
 *   <li>a closed session runs and transfers nothing (a step {@code Failed(INFRASTRUCTURE)}, a
 *       transfer {@link ExecutorException} of kind {@link Failure.Kind#INFRASTRUCTURE});
 *   <li>a signal that already fired stops the operation before it starts ({@link
 *       StepOutcome#stopped}, or {@link Failure.Kind#STOPPED} for a start or a transfer);
 *   <li>a step whose variables cannot reach a process ({@link Environment#problem}) fails as
 *       {@link Failure.Kind#LIMIT}, naming the variable, never its value;
 *   <li>a transfer's directory must be absolute without {@code ..} ({@link RunLayout#absolute}); the
 *       executor gets its plain form, a bad one is {@link Failure.Kind#LIMIT} like any other
 *       request the seam refuses to carry;
 *   <li>when the caller's {@link OutputSink} throws, the step's processes are stopped through the
 *       step's own stop signal (fired with {@code CANCELLED}), the session's {@code run} or
 *       {@code follow} is waited for, and the sink's exception is then passed on;
 *   <li>{@code close} reaches the executor's session once, however often it is called.
 * </ol>
 */
public final class Guarded {

    private Guarded() {}

    /** {@code executor} with the rules applied; an executor already guarded is returned as is. */
    public static Executor executor(Executor executor) {
        return executor instanceof GuardedExecutor ? executor : new GuardedExecutor(executor);
    }
}
