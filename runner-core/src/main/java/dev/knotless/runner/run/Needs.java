package dev.knotless.runner.run;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowSet;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Whether a workflow of a run graph may start, given how the runs before it ended: every run it
 * needs passed, and (fail-fast) no other combination of its matrix failed. The same words for
 * {@code exec} and the daemon.
 */
public final class Needs {

    private Needs() {}

    /**
     * Why {@code w} must not start: "needs build, which failed"; empty when it may.
     *
     * @param ended the final status of each run so far, by workflow name (as checks carry it)
     */
    public static Optional<String> blocker(WorkflowSet set, Workflow w, Map<String, CheckStatus> ended, Event event) {
        Optional<String> need = unpassed(set.runsNeededBy(w), name -> Optional.ofNullable(ended.get(name)), event);
        if (need.isPresent()) {
            return need;
        }
        if (w.cell() != null && w.cell().failFast()) {
            for (Workflow other : set.workflows()) {
                CheckStatus status = ended.get(other.name());
                if (other != w && other.group().equals(w.group())
                        && (status == CheckStatus.FAILURE || status == CheckStatus.ERROR)) {
                    return Optional.of(failFast(other.name()));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * "needs build, which failed": the first need that does not run or ended without passing;
     * empty while every need passed or is still going.
     *
     * @param newest the status of the newest run of a need, empty when it has none
     */
    public static Optional<String> unpassed(Iterable<String> needs, Function<String, Optional<CheckStatus>> newest, Event event) {
        for (String need : needs) {
            Optional<CheckStatus> status = newest.apply(need);
            if (status.isEmpty()) {
                return Optional.of(notRun(need, event));
            }
            if (status.get() != CheckStatus.SUCCESS && status.get().isFinal()) {
                return Optional.of("needs " + need + ", which " + ended(status.get()));
            }
        }
        return Optional.empty();
    }

    /** "needs site, which does not run for this push on this runner". */
    public static String notRun(String need, Event event) {
        return "needs " + need + ", which does not run for this " + event.wireName() + " on this runner";
    }

    /** "build (jdk=17) failed (fail-fast)". */
    public static String failFast(String failed) {
        return failed + " failed (fail-fast)";
    }

    /** "failed", "ended in an error", "was cancelled". */
    public static String ended(CheckStatus status) {
        return switch (status) {
            case FAILURE -> "failed";
            case ERROR -> "ended in an error";
            case CANCELLED -> "was cancelled";
            default -> status.wireName();
        };
    }
}
