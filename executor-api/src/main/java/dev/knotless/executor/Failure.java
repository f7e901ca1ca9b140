package dev.knotless.executor;

import dev.knotless.text.OneLine;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Why the executor could not do what was asked, in one line a user can act on.
 *
 * @param kind what class of failure, for metrics and status mapping
 * @param reason one line, no stack trace: {@code image "x" not found}, {@code pod unschedulable: …}
 */
public record Failure(Kind kind, String reason) {

    /** A reason that is null or blank (an exception without a message) becomes the kind's name. */
    public Failure(Kind kind, @Nullable String reason) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.reason = reason == null || reason.isBlank() ? kind.name().toLowerCase() : oneLine(reason);
    }

    public enum Kind {
        /** The image does not exist or cannot be pulled. */
        IMAGE,
        /** The run's environment cannot be placed (requests above every node, no node). */
        UNSCHEDULABLE,
        /** The environment disappeared under the run (container or pod deleted, node lost). */
        LOST,
        /**
         * What was asked is outside what a run may do, and the user can change it: a transfer over
         * its byte limit or deadline, an entry or a directory the tar rules refuse ({@code ..}, an
         * outside link, a relative path), a variable Linux cannot carry.
         */
        LIMIT,
        /** A stop signal ended the operation. */
        STOPPED,
        /**
         * A service of the run ({@link ServiceSpec}) could not be had: its image is missing, it
         * ended, or it did not accept a connection on a port within its wait. The reason names it;
         * the user changes the workflow, not the runner.
         */
        SERVICE,
        /** The engine, cluster or node could not be reached or answered an error. */
        INFRASTRUCTURE
    }

    /** At most 500 characters with its "...", as every check reason has been cut. */
    private static String oneLine(String text) {
        String s = OneLine.of(text);
        return s.length() > 500 ? s.substring(0, 497) + "..." : s;
    }
}
