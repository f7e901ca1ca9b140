package dev.knotless.executor.docker;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.TarSink;
import dev.knotless.executor.TarSource;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's container, started now or found again after a restart: steps are detached execs in
 * it ({@link DockerSteps}), followed again when their stream is cut or their runner restarted; uploads and downloads its
 * archive endpoints ({@link DockerTransfers}). The rules every session obeys (closed, early stop,
 * variables, paths, a failing sink, repeated close) are applied above it by {@code Guarded}.
 *
 * <p>Concurrency: used by one thread, except that stop signals fire from others (they only close
 * connections and start a {@code StepStopper}).
 */
final class DockerSession implements ResumedSession {

    private static final Logger log = LoggerFactory.getLogger(DockerSession.class);

    private final RunContainer container;
    private final DockerSteps steps;
    private final DockerTransfers transfers;
    private final ServiceContainers services;
    private final Runnable afterClose;

    /** @param afterClose runs once the container is gone (the warm pool makes the next one then) */
    DockerSession(EngineClient engine, RunSpec spec, String id, String name, Runnable afterClose) {
        this.container = new RunContainer(engine, spec, id, name);
        this.steps = new DockerSteps(container);
        this.transfers = new DockerTransfers(container);
        this.services = new ServiceContainers(engine, spec, id);
        this.afterClose = afterClose;
    }

    String id() {
        return container.id();
    }

    @Override
    public String describe() {
        String id = container.id();
        return "container " + container.name() + " (" + id.substring(0, Math.min(12, id.length())) + ")";
    }

    @Override
    public void upload(String dir, TarSource tar, StopSignal signal) throws ExecutorException {
        transfers.upload(dir, tar, signal);
    }

    @Override
    public StepOutcome run(StepPayload step, OutputSink output, StopSignal signal) {
        transfers.forgetDirectories();
        return steps.run(step, output, signal);
    }

    @Override
    public Optional<StepOutcome> follow(StepPayload step, long stdoutFrom, long stderrFrom, OutputSink output,
            StopSignal signal) {
        transfers.forgetDirectories();
        return steps.follow(step, stdoutFrom, stderrFrom, output, signal);
    }

    @Override
    public void download(String dir, TarSink sink, StopSignal signal) throws ExecutorException {
        transfers.download(dir, sink, signal);
    }

    @Override
    public void serviceLog(String service, long maxBytes, OutputSink output, StopSignal signal) throws ExecutorException {
        services.log(service, maxBytes, output, signal);
    }

    ServiceContainers services() {
        return services;
    }

    void layoutMade() {
        transfers.layoutMade();
    }

    void createLayout() throws IOException {
        transfers.createLayout();
    }

    @Override
    public void close() {
        steps.close();
        RunSpec spec = container.spec();
        if (spec.keep()) {
            log.info("container kept id={} name={} run={}", container.id(), container.name(), spec.runId());
            return;
        }
        services.remove(); // first: they live in the run container's network namespace
        try {
            // An engine restarting under the run comes back within seconds; the container must not stay behind.
            boolean removed = EngineOutage.retrying(() -> container.engine().removeContainer(container.id()));
            log.info("container deleted id={} name={} run={}{}", container.id(), container.name(), spec.runId(),
                    removed ? "" : " (already gone)");
        } catch (IOException | RuntimeException e) {
            log.warn("container delete failed id={} name={} run={} reason={}", container.id(), container.name(), spec.runId(),
                    e.getMessage());
        }
        afterClose.run();
    }
}
