package dev.knotless.executor;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What an executor needs to create one run's environment.
 *
 * @param runnerId the runner that owns the run (label {@link Labels#RUNNER})
 * @param runId unique per run (label {@link Labels#RUN})
 * @param image the OCI image reference
 * @param resources CPU and memory for the run; zero means the executor's default
 * @param trust {@link Trust#UNTRUSTED} runs get no network (as {@link Executor#untrustedNetwork} says) and, on
 *     node and Kubernetes, a node of their own
 * @param timeout the whole run's deadline, from start to close
 * @param killGrace how long stopped processes get between TERM and KILL
 * @param labels extra labels put on everything created, beside the two of {@link Labels}
 * @param keep when true, {@link Session#close()} leaves the environment for inspection
 * @param hardening how the environment is locked down; {@link Hardening#DEFAULT} unless a caller says otherwise
 * @param services containers started beside the run and ready before {@link Executor#start} returns; names unique
 */
public record RunSpec(
        String runnerId,
        String runId,
        String image,
        Resources resources,
        Trust trust,
        Duration timeout,
        Duration killGrace,
        Map<String, String> labels,
        boolean keep,
        Hardening hardening,
        List<ServiceSpec> services) {

    public RunSpec {
        Objects.requireNonNull(runnerId, "runnerId");
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(resources, "resources");
        Objects.requireNonNull(trust, "trust");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(killGrace, "killGrace");
        labels = Map.copyOf(labels);
        Objects.requireNonNull(hardening, "hardening");
        services = List.copyOf(services);
        if (services.stream().map(ServiceSpec::name).distinct().count() != services.size()) {
            throw new IllegalArgumentException("two services of run " + runId + " have one name");
        }
    }

    /** The same spec with {@code value} as its image and {@code withServices} as its services (their images pinned). */
    public RunSpec withImages(String value, List<ServiceSpec> withServices) {
        return new RunSpec(runnerId, runId, value, resources, trust, timeout, killGrace, labels, keep, hardening, withServices);
    }

    /** The service named {@code name}. */
    public Optional<ServiceSpec> service(String name) {
        return services.stream().filter(s -> s.name().equals(name)).findFirst();
    }

    /** How much later than the run's deadline and kill grace an executor's own deadline acts: see {@link #backstop}. */
    public static final Duration BACKSTOP_MARGIN = Duration.ofSeconds(5);

    /**
     * The deadline an executor that has one keeps by itself, for a run whose runner is gone
     * (killed, cut off): the Kubernetes Job's {@code activeDeadlineSeconds}, the node's allocation
     * deadline. It is the run's deadline, its kill grace and {@link #BACKSTOP_MARGIN}: the runner
     * stops the run at its deadline and has closed the session within the grace, so while the
     * runner is there it always acts first, and the two never race to stop the same processes
     * (measured on Kubernetes: with no margin, the Job ended the pod under the runner's stop, whose
     * exec then hung for 10 s).
     */
    public Duration backstop() {
        return timeout.plus(killGrace).plus(BACKSTOP_MARGIN);
    }

    /** The labels to put on everything the executor creates for this run. */
    public Map<String, String> allLabels() {
        var all = new TreeMap<>(labels);
        all.put(Labels.RUNNER, runnerId);
        all.put(Labels.RUN, runId);
        return all;
    }

    public static Builder builder(String runnerId, String runId, String image) {
        return new Builder(runnerId, runId, image);
    }

    public static final class Builder {
        private final String runnerId;
        private final String runId;
        private final String image;
        private Resources resources = Resources.DEFAULT;
        private Trust trust = Trust.TRUSTED;
        private Duration timeout = Duration.ofHours(1);
        private Duration killGrace = Duration.ofSeconds(5);
        private Map<String, String> labels = Map.of();
        private boolean keep;
        private Hardening hardening = Hardening.DEFAULT;
        private List<ServiceSpec> services = List.of();

        private Builder(String runnerId, String runId, String image) {
            this.runnerId = runnerId;
            this.runId = runId;
            this.image = image;
        }

        public Builder resources(Resources value) { this.resources = value; return this; }
        public Builder trust(Trust value) { this.trust = value; return this; }
        public Builder timeout(Duration value) { this.timeout = value; return this; }
        public Builder killGrace(Duration value) { this.killGrace = value; return this; }
        public Builder labels(Map<String, String> value) { this.labels = value; return this; }
        public Builder keep(boolean value) { this.keep = value; return this; }
        public Builder hardening(Hardening value) { this.hardening = value; return this; }
        public Builder services(List<ServiceSpec> value) { this.services = value; return this; }

        public RunSpec build() {
            return new RunSpec(runnerId, runId, image, resources, trust, timeout, killGrace, labels, keep, hardening, services);
        }
    }
}
