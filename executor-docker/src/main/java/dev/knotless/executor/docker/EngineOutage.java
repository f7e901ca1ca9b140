package dev.knotless.executor.docker;

import dev.knotless.time.Deadline;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;

/**
 * The engine unreachable for a while: restarting ({@code systemctl restart docker} takes a few
 * seconds, live-restore off stops every container) or its socket briefly gone. A call that only
 * clears up or explains a run (is the container still there? remove it) is made again until the
 * engine answers, for up to {@link #RIDE_OUT}, so that a restart neither leaves a container behind
 * nor turns the step's end into a connection error that names no cause.
 */
final class EngineOutage {

    /** How long a clean-up waits for an engine that cannot be reached; a restart takes 2 to 10 s. */
    static final Duration RIDE_OUT = Duration.ofSeconds(60);

    private static final long FIRST_PAUSE_MILLIS = 100;
    private static final long MAX_PAUSE_MILLIS = 1_000;

    /** A call to the engine. */
    @FunctionalInterface
    interface Call<T> {
        T call() throws IOException;
    }

    private EngineOutage() {}

    /** True when the engine was not reached or the connection broke, as opposed to an answer that refused. */
    static boolean isOutage(IOException e) {
        return !(e instanceof EngineException refused) || refused.status() == 0;
    }

    /** {@link #retrying(Call, Duration)} for up to {@link #RIDE_OUT}. */
    static <T> T retrying(Call<T> call) throws IOException {
        return retrying(call, RIDE_OUT);
    }

    /**
     * The call's answer, made again (pausing 100 ms, doubling to 1 s) while the engine cannot be
     * reached and {@code within} has not passed; an answer that refuses is thrown at once, and so is
     * the last outage once {@code within} has passed.
     */
    static <T> T retrying(Call<T> call, Duration within) throws IOException {
        Deadline deadline = Deadline.in(within);
        long pause = FIRST_PAUSE_MILLIS;
        while (true) {
            try {
                return call.call();
            } catch (IOException e) {
                if (!isOutage(e) || deadline.passed()) {
                    throw e;
                }
            }
            try {
                Thread.sleep(Math.min(pause, Math.max(1, deadline.left().toMillis())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for the Docker Engine");
            }
            pause = Math.min(MAX_PAUSE_MILLIS, pause * 2);
        }
    }
}
