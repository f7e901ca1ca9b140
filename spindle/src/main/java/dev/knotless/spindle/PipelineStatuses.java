package dev.knotless.spindle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.checks.Check;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.forge.CheckPublisher;
import java.io.IOException;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Turns the daemon's checks into {@code sh.tangled.pipeline.status} events, stored for the
 * appview's {@code /events} stream. A check of a run the spindle did not make (none are, but for
 * safety) is left alone.
 *
 * <p>States as tangled has them: {@code pending} when the pipeline arrives (one per run it makes),
 * {@code running} when the run starts, then {@code success}, {@code failed} (with the failing
 * step's exit code and the check's reason), {@code timeout} (the run or a step ran out of time), or
 * {@code cancelled}. A check that is an error of ours (no image, no node) is {@code failed} with the
 * reason: tangled has no other word for it.
 */
public final class PipelineStatuses implements CheckPublisher {

    public static final String NSID = "sh.tangled.pipeline.status";

    private final SpindleStore store;
    private final ObjectMapper json;
    private final Clock clock;
    private final Tid tids;
    private final StatusSignal signal;
    /** Runs told {@code running} already: {@link #started} comes again after each step. */
    private final Set<String> running = ConcurrentHashMap.newKeySet();

    PipelineStatuses(SpindleStore store, ObjectMapper json, Clock clock, StatusSignal signal) {
        this.store = store;
        this.json = json;
        this.clock = clock;
        this.tids = new Tid(clock);
        this.signal = signal;
    }

    /** A workflow of a pipeline is waiting: before its run is queued. */
    void pending(SpindleStore.WorkflowRun run) throws IOException {
        emit(run.pipelineUri(), run.workflow(), "pending", null, null);
    }

    /** A workflow that never becomes a run (an engine this spindle does not run): failed at once. */
    void failed(String pipelineUri, String workflow, String error) throws IOException {
        emit(pipelineUri, workflow, "failed", error, null);
    }

    @Override
    public void started(Check check) throws IOException {
        Optional<SpindleStore.WorkflowRun> run = store.workflowOf(check.id());
        if (run.isPresent() && running.add(check.id())) {
            emit(run.get().pipelineUri(), run.get().workflow(), "running", null, null);
        }
    }

    @Override
    public void publish(Check check) throws IOException {
        Optional<SpindleStore.WorkflowRun> found = store.workflowOf(check.id());
        if (found.isEmpty()) {
            return;
        }
        SpindleStore.WorkflowRun run = found.get();
        switch (check.status()) {
            case PENDING -> {} // told when the pipeline came
            case RUNNING -> started(check);
            // tangled has no word for a run that was not to run: it failed nothing
            case SUCCESS, SKIPPED -> emit(run.pipelineUri(), run.workflow(), "success", null, null);
            case CANCELLED -> emit(run.pipelineUri(), run.workflow(), "cancelled", check.reason(), null);
            case FAILURE, ERROR -> {
                StepResult failing = check.steps().stream()
                        .filter(s -> s.status() == StepStatus.FAILURE || s.status() == StepStatus.ERROR)
                        .reduce((a, b) -> b).orElse(null);
                if (timedOut(check.reason()) || failing != null && timedOut(failing.reason())) {
                    emit(run.pipelineUri(), run.workflow(), "timeout", check.reason(), null);
                } else {
                    Integer code = failing == null ? null : failing.exitCode();
                    emit(run.pipelineUri(), run.workflow(), "failed", check.reason(), code);
                }
            }
        }
        if (check.status().isFinal()) {
            running.remove(check.id());
        }
    }

    private static boolean timedOut(@Nullable String reason) {
        return reason != null && reason.contains("timed out after");
    }

    private void emit(String pipeline, String workflow, String status, @Nullable String error, @Nullable Integer exitCode)
            throws IOException {
        ObjectNode event = json.createObjectNode();
        event.put("$type", NSID);
        event.put("pipeline", pipeline);
        event.put("workflow", workflow);
        event.put("status", status);
        event.put("createdAt", DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.MILLIS)));
        if (error != null) {
            event.put("error", error);
        }
        if (exitCode != null) {
            event.put("exitCode", exitCode.longValue());
        }
        store.append(tids.next(), NSID, json.writeValueAsString(event));
        signal.bump();
    }
}
