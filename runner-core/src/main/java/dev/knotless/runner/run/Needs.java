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
 * needs passed (or, for a workflow whose condition starts it whatever they did, ran at all), and
 * (fail-fast) no other combination of its matrix failed. The same words for {@code exec} and the
 * daemon.
 */
public final class Needs {

    private Needs() {}

    /**
     * Why a run must not start, and how it ends for that: {@code skipped} when a run it needs was
     * skipped (as GitHub skips what needs a skipped job), else {@code cancelled}.
     */
    public record Blocker(String reason, CheckStatus ending) {}

    /**
     * Why {@code w} must not start: "needs build, which failed"; empty when it may.
     *
     * @param ended the final status of each run so far, by workflow name (as checks carry it)
     */
    public static Optional<Blocker> blocker(WorkflowSet set, Workflow w, Map<String, CheckStatus> ended, Event event) {
        Optional<Blocker> need = unpassed(set.runsNeededBy(w), name -> Optional.ofNullable(ended.get(name)), event,
                w.condition().needsPassed());
        if (need.isPresent()) {
            return need;
        }
        if (w.cell() != null && w.cell().failFast()) {
            for (Workflow other : set.workflows()) {
                CheckStatus status = ended.get(other.name());
                if (other != w && other.group().equals(w.group())
                        && (status == CheckStatus.FAILURE || status == CheckStatus.ERROR)) {
                    return Optional.of(new Blocker(failFast(other.name()), CheckStatus.CANCELLED));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * "needs build, which failed": the first need that does not run or (when {@code mustPass})
     * ended without passing; empty while every need passed or is still going.
     *
     * @param newest the status of the newest run of a need, empty when it has none
     * @param mustPass whether the run starts only after its needs passed; else only their not
     *     running at all blocks it
     */
    public static Optional<Blocker> unpassed(Iterable<String> needs, Function<String, Optional<CheckStatus>> newest, Event event,
            boolean mustPass) {
        for (String need : needs) {
            Optional<CheckStatus> status = newest.apply(need);
            if (status.isEmpty()) {
                return Optional.of(new Blocker(notRun(need, event), CheckStatus.CANCELLED));
            }
            if (mustPass && status.get() != CheckStatus.SUCCESS && status.get().isFinal()) {
                return Optional.of(new Blocker("needs " + need + ", which " + ended(status.get()),
                        status.get() == CheckStatus.SKIPPED ? CheckStatus.SKIPPED : CheckStatus.CANCELLED));
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

    /** "failed", "ended in an error", "was cancelled", "was skipped". */
    public static String ended(CheckStatus status) {
        return switch (status) {
            case FAILURE -> "failed";
            case ERROR -> "ended in an error";
            case CANCELLED -> "was cancelled";
            case SKIPPED -> "was skipped";
            default -> status.wireName();
        };
    }
}
