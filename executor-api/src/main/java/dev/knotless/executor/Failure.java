package dev.knotless.executor;

import java.util.Objects;

/**
 * Why the executor could not do what was asked, in one line a user can act on.
 *
 * @param kind what class of failure, for metrics and status mapping
 * @param reason one line, no stack trace: {@code image "x" not found}, {@code pod unschedulable: …}
 */
public record Failure(Kind kind, String reason) {

    public enum Kind {
        /** The image does not exist or cannot be pulled. */
        IMAGE,
        /** The run's environment cannot be placed (requests above every node, no node). */
        UNSCHEDULABLE,
        /** The environment disappeared under the run (container or pod deleted, node lost). */
        LOST,
        /** A transfer went over its byte limit or its deadline. */
        LIMIT,
        /** A stop signal ended the operation. */
        STOPPED,
        /** The engine, cluster or node could not be reached or answered an error. */
        INFRASTRUCTURE
    }

    public Failure {
        Objects.requireNonNull(kind, "kind");
        reason = reason == null || reason.isBlank() ? kind.name().toLowerCase() : oneLine(reason);
    }

    private static String oneLine(String text) {
        String s = text.strip().replaceAll("\\s*\\R\\s*", " ");
        return s.length() > 500 ? s.substring(0, 497) + "..." : s;
    }
}
