package dev.knotless.hosted;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * One commit status as a forge is asked to show it.
 *
 * @param state the forge's word ({@link #state(ForgeKind, CheckStatus)})
 * @param context {@code knotless/<workflow>}: one status per workflow on a commit
 * @param targetUrl the run on the daemon's status page; null when no page address is configured
 */
record CommitStatus(String sha, String state, String context, String description, @Nullable String targetUrl) {

    /** GitHub refuses a longer description. */
    static final int MAX_DESCRIPTION = 140;

    /** {@code check}'s status for {@code kind}; {@code pageUrl} (may be null) is where the status page is. */
    static CommitStatus of(ForgeKind kind, Check check, @Nullable String pageUrl) {
        String base = pageUrl == null ? null : pageUrl.replaceAll("/+$", "");
        return new CommitStatus(check.commit(), state(kind, check.status()), "knotless/" + check.workflow(), description(check),
                base == null ? null : base + "/#/runs/" + check.id());
    }

    /**
     * The state table (docs/guide/forges.md): GitHub knows no running, cancelled or skipped, Gitea
     * no running or skipped but a warning, GitLab all but says failed for both failure and error. A
     * skipped run fails nothing, so where the forge has no word for it, it is {@code success}.
     */
    static String state(ForgeKind kind, CheckStatus status) {
        return switch (kind) {
            case GITHUB -> switch (status) {
                case PENDING, RUNNING -> "pending";
                case SUCCESS, SKIPPED -> "success";
                case FAILURE -> "failure";
                case ERROR, CANCELLED -> "error";
            };
            case GITEA -> switch (status) {
                case PENDING, RUNNING -> "pending";
                case SUCCESS, SKIPPED -> "success";
                case FAILURE -> "failure";
                case ERROR -> "error";
                case CANCELLED -> "warning";
            };
            case GITLAB -> switch (status) {
                case PENDING -> "pending";
                case RUNNING -> "running";
                case SUCCESS -> "success";
                case FAILURE, ERROR -> "failed";
                case CANCELLED -> "canceled";
                case SKIPPED -> "skipped";
            };
        };
    }

    private static String description(Check check) {
        String took = check.finishedAt() == null ? "" : " in " + shortly(Duration.between(check.startedAt(), check.finishedAt()));
        String text = switch (check.status()) {
            case PENDING -> "waiting for a runner";
            case RUNNING -> "running";
            case SUCCESS -> "passed" + took;
            case FAILURE -> "failed" + took + because(check);
            case ERROR -> "could not run" + because(check);
            case CANCELLED -> "cancelled" + because(check);
            case SKIPPED -> "skipped" + because(check);
        };
        return text.length() <= MAX_DESCRIPTION ? text : text.substring(0, MAX_DESCRIPTION - 3) + "...";
    }

    private static String because(Check check) {
        return check.reason() == null ? "" : ": " + check.reason().replaceAll("\\s+", " ");
    }

    private static String shortly(Duration d) {
        long s = Math.max(0, d.toSeconds());
        return s < 60 ? s + "s" : s < 3600 ? s / 60 + "m " + s % 60 + "s" : s / 3600 + "h " + s % 3600 / 60 + "m";
    }
}
