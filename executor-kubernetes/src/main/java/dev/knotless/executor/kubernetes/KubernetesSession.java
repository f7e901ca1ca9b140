package dev.knotless.executor.kubernetes;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.TarSink;
import dev.knotless.executor.TarSource;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's pod: its steps ({@link PodSteps}) and its transfers ({@link PodTransfers}), every
 * operation one exec in its container, over the one {@link RunPod} they share. The rules every
 * session obeys (closed, early stop, variables, paths, a failing sink, repeated close) are
 * applied above it by {@code Guarded}.
 *
 * <p>Concurrency: used by one thread, except that stop signals fire from others (they only close
 * an exec and start a {@code StepStopper}).
 */
final class KubernetesSession implements ResumedSession {

    private static final Logger log = LoggerFactory.getLogger(KubernetesSession.class);

    private final RunPod pod;
    private final JobDeletion deletion;
    private final PodSteps steps;
    private final PodTransfers transfers;
    private final PodServices services;
    private final Runnable whenDone;

    /** {@code whenDone} runs when the run's steps are over, as its Job is deleted (a warm pool asks for the next pod then). */
    KubernetesSession(RunPod pod, JobDeletion deletion, Duration reattachWindow, Runnable whenDone) {
        this.pod = pod;
        this.whenDone = whenDone;
        this.deletion = deletion;
        this.steps = new PodSteps(pod, reattachWindow);
        this.transfers = new PodTransfers(pod);
        this.services = new PodServices(pod);
    }

    PodServices services() {
        return services;
    }

    @Override
    public void serviceLog(String service, long maxBytes, OutputSink output, StopSignal signal) throws ExecutorException {
        services.log(service, maxBytes, output, signal);
    }

    @Override
    public String describe() {
        return "job " + pod.job() + " (pod " + pod.pod() + ")";
    }

    String pod() {
        return pod.pod();
    }

    String job() {
        return pod.job();
    }

    @Override
    public StepOutcome run(StepPayload step, OutputSink output, StopSignal signal) {
        return steps.run(step, output, signal);
    }

    @Override
    public Optional<StepOutcome> follow(StepPayload step, long stdoutFrom, long stderrFrom, OutputSink output,
            StopSignal signal) {
        return steps.follow(step, stdoutFrom, stderrFrom, output, signal);
    }

    @Override
    public void upload(String dir, TarSource tar, StopSignal signal) throws ExecutorException {
        transfers.upload(dir, tar, signal);
    }

    @Override
    public void download(String dir, TarSink sink, StopSignal signal) throws ExecutorException {
        transfers.download(dir, sink, signal);
    }

    @Override
    public void close() {
        steps.close();
        if (pod.spec().keep()) {
            log.info("job kept job={} pod={} run={}", pod.job(), pod.pod(), pod.spec().runId());
            return;
        }
        // before the delete, which waits 5-8 s for the kubelet while the node has nothing to do
        whenDone.run();
        try {
            deletion.delete(pod.job());
        } catch (RuntimeException e) {
            log.warn("job delete failed job={} run={} reason={}", pod.job(), pod.spec().runId(), e.getMessage());
        }
    }
}
