package dev.knotless.runner.run;

import dev.knotless.checks.Event;
import dev.knotless.checks.ScheduledFor;
import dev.knotless.executor.RunLayout;
import dev.knotless.runner.run.request.RunRequest;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The variables every step of a run gets (docs/reference/run-environment.md), and the ones a
 * scheduled run carries its due time in.
 */
final class RunVariables {

    private RunVariables() {}

    /** The run environment contract, then workflow and caller variables. */
    static Map<String, String> of(RunRequest r) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CI", "true");
        if (r.workflow().workspace().home() != null) {
            env.put("HOME", r.workflow().workspace().home());
        }
        env.put("KNOTLESS_RUN_ID", r.runId());
        env.put("KNOTLESS_REPO", r.repo());
        env.put("KNOTLESS_COMMIT", r.commit());
        env.put("KNOTLESS_REF", r.ref());
        env.put("KNOTLESS_EVENT", r.event().wireName());
        env.put("KNOTLESS_WORKFLOW", r.workflow().name());
        env.put("KNOTLESS_RUN_OUTPUTS", RunLayout.OUTPUTS);
        env.putAll(r.workflow().variables());
        env.putAll(r.variables());
        return env;
    }

    /**
     * When a scheduled run was due and what it stands for ({@link Run#SCHEDULED_FOR}, set by the
     * daemon); null for other runs.
     */
    static @Nullable ScheduledFor scheduledFor(RunRequest r) {
        String due = r.variables().get(Run.SCHEDULED_FOR);
        if (r.event() != Event.SCHEDULE || due == null) {
            return null;
        }
        try {
            String since = r.variables().get(Run.SCHEDULE_MISSED_SINCE);
            int missed = since == null ? 0 : Integer.parseInt(r.variables().getOrDefault(Run.SCHEDULE_MISSED, "0"));
            return missed > 0 ? new ScheduledFor(Instant.parse(due), missed, Instant.parse(since))
                    : ScheduledFor.onTime(Instant.parse(due));
        } catch (RuntimeException e) {
            return null; // variables a person set by hand (exec --var); the run goes on without the note
        }
    }
}
