package dev.knotless.executor.kubernetes;

import dev.knotless.executor.Executor;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Labels;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.Resumption;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.SweepReport;
import dev.knotless.executor.UntrustedNetwork;
import dev.knotless.executor.toolkit.ServiceReadiness;
import dev.knotless.time.Ticker;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each run in one pod of a batch/v1 Job; steps, uploads and downloads are execs in it
 * (docs/design/kubernetes.md).
 *
 * <p>{@link #start} refuses an untrusted run where the cluster does not enforce NetworkPolicy,
 * unless the operator accepted that ({@link UntrustedGate}), then creates the Job (and, once per runner, a deny-ingress NetworkPolicy, and for an
 * untrusted run the {@link UntrustedPolicy} ones: {@link NetworkPolicies}), waits for the pod to be
 * Ready within {@link KubernetesOptions#pendingTimeout()} ({@link PendingPods}), and deletes the Job
 * again when the pod cannot start. Deletes are foreground and wait until the Job and its pod are
 * gone, so nothing of a closed run is left when {@code close} or {@link #sweep} returns.
 *
 * <p>Concurrency: thread-safe. One fabric8 client (Vert.x 5 HTTP client) is shared by all runs
 * and closed by {@link #close()}.
 */
public final class KubernetesExecutor implements Executor, Resumption {

    private static final Logger log = LoggerFactory.getLogger(KubernetesExecutor.class);

    private final KubernetesOptions options;
    private final KubernetesClient client;
    /**
     * WebSocket ping interval of exec streams. Load balancers and proxies in front of API servers
     * cut connections idle for a minute or more; a step may be silent for much longer.
     */
    static final Duration KEEPALIVE = Duration.ofSeconds(20);

    private final KubernetesCounters counters = new KubernetesCounters();
    private final JobDeletion deletion;
    private final ResumeLookup resumes;
    private final Optional<WarmPods> warm;
    private final NetworkPolicies policies;
    private final PendingPods pending;
    private final UntrustedGate gate;

    public KubernetesExecutor(KubernetesOptions options) {
        this(options, false);
    }

    /**
     * @param warmPods keep one pod per run shape started ahead of the next trusted run of that
     *     shape ({@link WarmPods}): a run then skips the Job's create, scheduling and start
     */
    public KubernetesExecutor(KubernetesOptions options, boolean warmPods) {
        this(options, KEEPALIVE, new Vertx5HttpClientFactory(), warmPods);
    }

    /** With another keepalive interval (tests that cut idle connections within seconds). */
    KubernetesExecutor(KubernetesOptions options, Duration keepalive) {
        this(options, keepalive, new Vertx5HttpClientFactory(), false);
    }

    /** With another of fabric8's HTTP clients (the benchmark compares them). */
    KubernetesExecutor(KubernetesOptions options, Duration keepalive, HttpClient.Factory http) {
        this(options, keepalive, http, false);
    }

    private KubernetesExecutor(KubernetesOptions options, Duration keepalive, HttpClient.Factory http, boolean warmPods) {
        this.options = options;
        Config config;
        try {
            config = options.kubeconfig() == null
                    ? Kubeconfigs.tuned(Config.autoConfigure(options.context()))
                    : Kubeconfigs.load(options.kubeconfig(), options.context());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the kubeconfig " + options.kubeconfig() + ": " + e.getMessage(), e);
        }
        config.setWebsocketPingInterval(keepalive.toMillis());
        this.client = new KubernetesClientBuilder()
                .withConfig(config)
                .withHttpClientFactory(http)
                .build();
        this.deletion = new JobDeletion(client, options.namespace(), counters);
        this.resumes = new ResumeLookup(client, options.namespace());
        this.warm = warmPods ? Optional.of(new WarmPods(client, options.namespace(), deletion)) : Optional.empty();
        this.policies = new NetworkPolicies(client, options);
        this.pending = new PendingPods(client, options);
        this.gate = new UntrustedGate(new PodProbe(client, options.namespace(), options.probeImage(), policies, this::startPod, deletion),
                Ticker.SYSTEM, UntrustedGate.REPROBE, options.acceptUnenforcedNetworkPolicy());
    }

    @Override
    public String name() {
        return "kubernetes";
    }

    @Override
    public UntrustedNetwork untrustedNetwork() {
        return UntrustedPolicy.network(options.untrustedDns(), gate.describe());
    }

    @Override
    public Session start(RunSpec spec, StopSignal signal) throws ExecutorException {
        Optional<String> unsupported = JobShape.unsupported(spec.hardening());
        if (unsupported.isPresent()) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "cannot start run " + spec.runId() + ": " + unsupported.get());
        }
        gate.admit(spec);
        policies.ensureFor(spec);
        // With a pool, the next pod of this shape is asked for when this run is over: asked for
        // while this run starts, it would slow this run's start on the same node.
        Runnable refill = () -> {};
        Optional<WarmPods.Shape> shape = warm.isPresent() ? WarmPods.Shape.of(spec) : Optional.empty();
        if (shape.isPresent()) {
            refill = () -> warm.get().refillAfter(shape.get(), spec, this::startPod, signal);
            Optional<RunPod> taken = warm.get().take(shape.get(), spec, signal);
            ExecutorException.throwIfStopped(signal, "start of run " + spec.runId());
            if (taken.isPresent()) {
                return new KubernetesSession(taken.get(), deletion, options.reattachWindow(), refill);
            }
        }
        long started = System.nanoTime();
        RunPod pod = startPod(spec, signal);
        KubernetesSession session = new KubernetesSession(pod, deletion, options.reattachWindow(), refill);
        if (!spec.services().isEmpty()) {
            try {
                new ServiceReadiness().await(session, spec, session.services(), signal);
                log.info("services ready job={} run={} millis={}", pod.job(), spec.runId(), (System.nanoTime() - started) / 1_000_000);
            } catch (ExecutorException e) {
                session.close();
                throw e;
            }
        }
        return session;
    }

    /** Creates the run's Job and waits for its pod to be Ready; deletes the Job again when it cannot start. */
    private RunPod startPod(RunSpec spec, StopSignal signal) throws ExecutorException {
        Job job = JobShape.job(spec, options);
        String jobName = job.getMetadata().getName();
        long started = System.nanoTime();
        try {
            client.batch().v1().jobs().inNamespace(options.namespace()).resource(job).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 409) {
                throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "a Job named " + jobName
                        + " already exists (run " + spec.runId() + " is going or was left behind)");
            }
            throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE, "cannot create the run's Job "
                    + jobName + ": " + message(e)), e);
        }
        counters.jobCreated();
        log.info("job created job={} namespace={} runner={} run={} image={} trust={}",
                jobName, options.namespace(), spec.runnerId(), spec.runId(), spec.image(), spec.trust());
        String pod;
        try {
            pod = pending.awaitReady(spec, jobName, signal);
        } catch (ExecutorException e) {
            deletion.deleteUnstarted(jobName);
            throw e;
        } catch (RuntimeException e) {
            deletion.deleteUnstarted(jobName);
            throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE, "cannot follow the run's pod: " + message(e)), e);
        }
        log.info("pod ready job={} pod={} run={} millis={}", jobName, pod, spec.runId(), (System.nanoTime() - started) / 1_000_000);
        return runPod(spec, jobName, pod);
    }

    /**
     * The run's Job, when it is this runner's, not being deleted, and its pod runs and is Ready:
     * steps can go on in it. Anything less is empty, and the caller's sweep removes it.
     */
    @Override
    public Optional<Resumption> resumption() {
        return Optional.of(this);
    }

    @Override
    public Optional<ResumedSession> resume(RunSpec spec) {
        return switch (resumes.find(spec)) {
            case ResumeLookup.Found.Refused refused -> {
                log.info("resume refused job={} run={} reason={}", refused.job(), spec.runId(), refused.reason());
                yield Optional.empty();
            }
            case ResumeLookup.Found.Ready ready -> {
                counters.resumed();
                log.info("job resumed job={} pod={} run={}", ready.job(), ready.pod(), spec.runId());
                yield Optional.of(new KubernetesSession(runPod(spec, ready.job(), ready.pod()), deletion, options.reattachWindow(), () -> {}));
            }
        };
    }

    @Override
    public SweepReport sweep(String runnerId, Set<String> goingRuns) {
        List<String> removed = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        List<Job> jobs;
        try {
            jobs = runnerJobs(runnerId);
        } catch (KubernetesClientException e) {
            return new SweepReport(removed, List.of("cannot list Jobs of runner " + runnerId + ": " + message(e)));
        }
        for (Job job : jobs) {
            String run = annotation(job, Labels.RUN);
            String name = job.getMetadata().getName();
            if (goingRuns.contains(run)) {
                continue;
            }
            if (deletion.delete(name)) {
                removed.add(name);
                counters.orphanSwept();
                log.info("orphan swept job={} runner={} run={}", name, runnerId, run);
            } else {
                failed.add(name + ": still there after " + human(JobDeletion.WAIT));
            }
        }
        return new SweepReport(removed, failed);
    }

    /** The Jobs of {@code runnerId} in the namespace: by the (maybe hashed) label, then the raw annotation. */
    List<Job> runnerJobs(String runnerId) {
        return client.batch().v1().jobs().inNamespace(options.namespace())
                .withLabel(Labels.RUNNER, JobShape.labelValue(runnerId)).list().getItems().stream()
                .filter(j -> runnerId.equals(annotation(j, Labels.RUNNER)))
                .toList();
    }

    /** Names of the runner's Jobs, and of its pods that belong to none of them: one entry per run (tests, sweeps). */
    List<String> leftovers(String runnerId) {
        List<String> jobs = runnerJobs(runnerId).stream().map(j -> j.getMetadata().getName()).toList();
        List<String> names = new ArrayList<>(jobs);
        for (Pod pod : client.pods().inNamespace(options.namespace())
                .withLabel(Labels.RUNNER, JobShape.labelValue(runnerId)).list().getItems()) {
            String job = pod.getMetadata().getLabels() == null ? null : pod.getMetadata().getLabels().get(JobShape.JOB_NAME);
            if (runnerId.equals(annotation(pod.getMetadata().getAnnotations(), Labels.RUNNER)) && !jobs.contains(job)) {
                names.add("pod/" + pod.getMetadata().getName());
            }
        }
        return names;
    }

    KubernetesClient client() {
        return client;
    }

    private RunPod runPod(RunSpec spec, String job, String pod) {
        return new RunPod(client, options.namespace(), spec, job, pod, counters);
    }

    /** What this executor has done so far: Jobs, sweeps, cleanup failures, reattaches. */
    public KubernetesCounters counters() {
        return counters;
    }

    /** True when a warm pod waits for runs like {@code spec}. */
    boolean warmWaiting(RunSpec spec) {
        return warm.isPresent() && WarmPods.Shape.of(spec).map(warm.get()::waiting).orElse(false);
    }

    /** Removes the warm pods still waiting, then closes the client; runs' own Jobs go with their sessions. */
    @Override
    public void close() {
        warm.ifPresent(WarmPods::close);
        client.close();
    }

    static String message(Exception e) {
        if (e instanceof KubernetesClientException k && k.getStatus() != null && k.getStatus().getMessage() != null) {
            return k.getStatus().getMessage();
        }
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        // Without an answer, fabric8 says only which operation failed; the cause says why (connection refused).
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e || root.getMessage() == null || m.contains(root.getMessage()) ? m : m + " (" + root.getMessage() + ")";
    }

    static String annotation(io.fabric8.kubernetes.api.model.HasMetadata resource, String key) {
        return annotation(resource.getMetadata().getAnnotations(), key);
    }

    private static String annotation(java.util.Map<String, String> annotations, String key) {
        return annotations == null ? null : annotations.get(key);
    }

    static String human(Duration d) {
        long s = d.toSeconds();
        return s >= 60 && s % 60 == 0 ? s / 60 + "m" : s + "s";
    }
}
