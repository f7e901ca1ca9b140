package dev.knotless.runner.run.environment;

import dev.knotless.executor.Resources;
import dev.knotless.executor.Trust;
import dev.knotless.plan.Step;
import dev.knotless.plan.Workflow;
import dev.knotless.runner.run.request.Ceilings;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.time.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * A request as the runner's {@link Ceilings} let it run: CPU, memory, the run's and each step's
 * timeout clamped to their maxima, and the defaults put in where an untrusted run asks for none.
 * Everything after (the deadline, the executor's {@code RunSpec}, a step's signal) sees only the
 * fitted request, so every executor gets the same ceilings.
 *
 * @param request the request with its workflow fitted
 * @param notices one line for the run's log per field that was changed, naming it, what was asked
 *     and what the run got
 */
public record CeilingFit(RunRequest request, List<String> notices) {

    public CeilingFit {
        notices = List.copyOf(notices);
    }

    public static CeilingFit of(RunRequest request, RunLimits limits) {
        Ceilings ceilings = limits.ceilings();
        Workflow w = request.workflow();
        List<String> notices = new ArrayList<>();
        Resources defaults = ceilings.defaultsFor(request.trust());
        boolean untrusted = request.trust() == Trust.UNTRUSTED;
        long cpu = fit("resources.cpu", w.resources().milliCpu(), defaults.milliCpu(), ceilings.maxima().milliCpu(),
                untrusted, Resources::cpuText, notices);
        long memory = fit("resources.memory", w.resources().memoryBytes(), defaults.memoryBytes(),
                ceilings.maxima().memoryBytes(), untrusted, Resources::memoryText, notices);
        Duration timeout = clamp("timeout", w.timeout(), ceilings.maxRunTimeout(), notices);
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < w.steps().size(); i++) {
            Step s = w.steps().get(i);
            Duration stepTimeout = clamp("steps[" + i + "].timeout", s.timeout(), ceilings.maxStepTimeout(), notices);
            steps.add(stepTimeout == s.timeout() ? s : s.withTimeout(stepTimeout));
        }
        if (notices.isEmpty() && cpu == w.resources().milliCpu() && memory == w.resources().memoryBytes()) {
            return new CeilingFit(request, notices);
        }
        Workflow fitted = w.with(w.name(), w.file(), w.image(), timeout, new Resources(cpu, memory), w.variables(), w.cache(),
                steps);
        return new CeilingFit(request.withWorkflow(fitted), notices);
    }

    /** The CPU or memory a run gets: what it asked, at most the maximum; the default when it asked none. */
    private static long fit(String field, long asked, long byDefault, long max, boolean untrusted,
            LongFunction<String> text, List<String> notices) {
        if (asked == 0) {
            if (untrusted && byDefault > 0) {
                notices.add(field + ": none asked; an untrusted run always has a limit, running with "
                        + text.apply(byDefault));
            }
            return byDefault;
        }
        if (asked > max) {
            notices.add(field + ": asked " + text.apply(asked) + ", the runner allows at most " + text.apply(max)
                    + "; running with " + text.apply(max));
            return max;
        }
        return asked;
    }

    private static @Nullable Duration clamp(String field, @Nullable Duration asked, Duration max, List<String> notices) {
        if (asked == null || asked.compareTo(max) <= 0) {
            return asked;
        }
        notices.add(field + ": asked " + Durations.human(asked) + ", the runner allows at most " + Durations.human(max)
                + "; running with " + Durations.human(max));
        return max;
    }
}
