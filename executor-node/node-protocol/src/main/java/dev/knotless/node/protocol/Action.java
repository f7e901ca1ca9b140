package dev.knotless.node.protocol;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import java.util.Map;

/**
 * The only things a runner can ask of a node. Each reaches one subsystem of the agent's runtime;
 * none names a host command, and there is no action that runs one.
 *
 * <p>Every action names the node it is for, and the agent requires that to equal the envelope's
 * node, so an action cannot be lifted out of one node's envelope into another's.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = Action.PullImage.class, name = "pull_image"),
    @JsonSubTypes.Type(value = Action.CreateAllocation.class, name = "create_allocation"),
    @JsonSubTypes.Type(value = Action.StartAllocation.class, name = "start_allocation"),
    @JsonSubTypes.Type(value = Action.Upload.class, name = "upload"),
    @JsonSubTypes.Type(value = Action.RunStep.class, name = "run_step"),
    @JsonSubTypes.Type(value = Action.Download.class, name = "download"),
    @JsonSubTypes.Type(value = Action.StopAllocation.class, name = "stop_allocation"),
    @JsonSubTypes.Type(value = Action.DeleteAllocation.class, name = "delete_allocation"),
    @JsonSubTypes.Type(value = Action.AttachNetwork.class, name = "attach_network"),
    @JsonSubTypes.Type(value = Action.ListAllocations.class, name = "list_allocations"),
    @JsonSubTypes.Type(value = Action.ReadServiceLog.class, name = "read_service_log"),
})
public sealed interface Action {

    /** Upper bound on a step's payload (its stdin) carried inside one envelope. */
    int MAX_INLINE_BYTES = 8 * 1024 * 1024;
    int MAX_LABELS = 16;
    long MAX_STEP_TIMEOUT_MS = 24L * 60 * 60 * 1000;
    long MAX_STOP_GRACE_MS = 10L * 60 * 1000;

    String node();

    /** Pull an image, pinned by digest, into the node's image store. */
    record PullImage(String node, String image) implements Action {
        public PullImage {
            Names.node(node);
            Names.image(image);
        }
    }

    /**
     * The longest an allocation may be asked to live: a week, far above any run ceiling an
     * operator sets (6 h built in), since a run's steps together may outlast the longest step.
     */
    long MAX_LIFETIME_MS = 7L * 24 * 60 * 60 * 1000;

    /**
     * Make an allocation (a container, not yet started) from a pulled image, with its limits. The
     * labels are the runner's bookkeeping (its id, the run's id); the node stores and lists them.
     *
     * @param lifetimeMs how long after its first create the node itself ends and removes the
     *     allocation, whether or not a runner is connected then: the run's deadline, kept by the
     *     node (0: no deadline, for allocations made before it existed)
     * @param services containers made with it in its network namespace, started with it, removed with it
     */
    record CreateAllocation(String node, String allocation, String image, long cpuMillis, long memoryBytes,
            Map<String, String> labels, ProcessHardening hardening, long lifetimeMs, List<ServiceContainer> services)
            implements Action {
        public CreateAllocation {
            services = services == null ? List.of() : List.copyOf(services);
            if (services.size() > ServiceContainer.MAX_SERVICES) {
                throw new IllegalArgumentException("at most " + ServiceContainer.MAX_SERVICES + " services, got " + services.size());
            }
            if (services.stream().map(ServiceContainer::name).distinct().count() != services.size()) {
                throw new IllegalArgumentException("two services have one name");
            }
            if (lifetimeMs < 0 || lifetimeMs > MAX_LIFETIME_MS) {
                throw new IllegalArgumentException("lifetimeMs must be 0.." + MAX_LIFETIME_MS + ", was " + lifetimeMs);
            }
            Names.node(node);
            Names.allocation(allocation);
            Names.image(image);
            labels = Names.labels(labels);
            hardening = hardening == null ? ProcessHardening.DEFAULT : hardening;
            if (cpuMillis < 1 || cpuMillis > 1_024_000) {
                throw new IllegalArgumentException("cpuMillis must be 1..1024000, was " + cpuMillis);
            }
            if (memoryBytes < 4L * 1024 * 1024 || memoryBytes > 1024L * 1024 * 1024 * 1024) {
                throw new IllegalArgumentException("memoryBytes must be 4 MiB..1 TiB, was " + memoryBytes);
            }
        }

        /** Without services. */
        public CreateAllocation(String node, String allocation, String image, long cpuMillis, long memoryBytes,
                Map<String, String> labels, ProcessHardening hardening, long lifetimeMs) {
            this(node, allocation, image, cpuMillis, memoryBytes, labels, hardening, lifetimeMs, List.of());
        }

        /** With no deadline of the node's own. */
        public CreateAllocation(String node, String allocation, String image, long cpuMillis, long memoryBytes,
                Map<String, String> labels, ProcessHardening hardening) {
            this(node, allocation, image, cpuMillis, memoryBytes, labels, hardening, 0);
        }

        /** With the default hardening and no deadline of the node's own. */
        public CreateAllocation(String node, String allocation, String image, long cpuMillis, long memoryBytes,
                Map<String, String> labels) {
            this(node, allocation, image, cpuMillis, memoryBytes, labels, ProcessHardening.DEFAULT, 0);
        }
    }

    record StartAllocation(String node, String allocation) implements Action {
        public StartAllocation {
            Names.node(node);
            Names.allocation(allocation);
        }
    }

    /**
     * Unpack the tar that follows this action on its stream into a directory of the run (absolute,
     * created if missing), reading at most {@code maxBytes}. The node answers with the byte count
     * and SHA-256 of what it read, so the runner can tell it received exactly what was sent.
     */
    record Upload(String node, String allocation, String path, long maxBytes) implements Action {
        public Upload {
            Names.node(node);
            Names.allocation(allocation);
            Names.runPath(path);
            if (maxBytes < 1) {
                throw new IllegalArgumentException("maxBytes must be positive, was " + maxBytes);
            }
        }
    }

    /**
     * Run one step inside the allocation's container: the payload goes to the step's stdin. The
     * step outlives the stream that started it; sending {@code run_step} again for the same
     * allocation and step (and the same payload) attaches to it instead of running it twice, and
     * the output is streamed from the given byte offsets: that is how a runner that lost its
     * connection resumes a step.
     */
    record RunStep(String node, String allocation, int step, byte[] payload, long timeoutMs,
            long stdoutFrom, long stderrFrom) implements Action {
        public RunStep {
            Names.node(node);
            Names.allocation(allocation);
            if (step < 1 || step > 10_000) {
                throw new IllegalArgumentException("step must be 1..10000, was " + step);
            }
            requireBytes(payload, "payload");
            payload = payload.clone();
            if (timeoutMs < 1 || timeoutMs > MAX_STEP_TIMEOUT_MS) {
                throw new IllegalArgumentException("timeoutMs must be 1.." + MAX_STEP_TIMEOUT_MS + ", was " + timeoutMs);
            }
            if (stdoutFrom < 0 || stderrFrom < 0) {
                throw new IllegalArgumentException("output offsets must not be negative");
            }
        }

        @Override
        public byte[] payload() {
            return payload.clone();
        }
    }

    /** Tar a directory of the run (absolute) and send it back on the action's stream. */
    record Download(String node, String allocation, String path) implements Action {
        public Download {
            Names.node(node);
            Names.allocation(allocation);
            Names.runPath(path);
        }
    }

    /**
     * TERM, then KILL after {@code graceMs}: with {@code stepsOnly}, every process of the
     * allocation but its PID 1 (a step is stopped and the allocation stays usable); otherwise the
     * whole container.
     */
    record StopAllocation(String node, String allocation, long graceMs, boolean stepsOnly) implements Action {
        public StopAllocation {
            Names.node(node);
            Names.allocation(allocation);
            if (graceMs < 0 || graceMs > MAX_STOP_GRACE_MS) {
                throw new IllegalArgumentException("graceMs must be 0.." + MAX_STOP_GRACE_MS + ", was " + graceMs);
            }
        }
    }

    record DeleteAllocation(String node, String allocation) implements Action {
        public DeleteAllocation {
            Names.node(node);
            Names.allocation(allocation);
        }
    }

    /** Join the allocation to one of the node's named networks (its policy is the node's, not the action's). */
    record AttachNetwork(String node, String allocation, String network) implements Action {
        public AttachNetwork {
            Names.node(node);
            Names.allocation(allocation);
            Names.network(network);
        }
    }

    record ListAllocations(String node) implements Action {
        public ListAllocations {
            Names.node(node);
        }
    }

    /** The most of a service's output one {@link ReadServiceLog} returns inline. */
    int MAX_SERVICE_LOG = 1024 * 1024;

    /**
     * What service {@code service} of the allocation has printed (stdout and stderr, as its PID 1
     * wrote them), from its start, at most {@code maxBytes}: the runner shows it in the run's log.
     */
    record ReadServiceLog(String node, String allocation, String service, int maxBytes) implements Action {
        public ReadServiceLog {
            Names.node(node);
            Names.allocation(allocation);
            ServiceContainer.requireName(service);
            if (maxBytes < 1 || maxBytes > MAX_SERVICE_LOG) {
                throw new IllegalArgumentException("maxBytes must be 1.." + MAX_SERVICE_LOG + ", was " + maxBytes);
            }
        }
    }

    private static void requireBytes(byte[] bytes, String what) {
        if (bytes == null) {
            throw new IllegalArgumentException(what + " is missing");
        }
        if (bytes.length > MAX_INLINE_BYTES) {
            throw new IllegalArgumentException(what + " is " + bytes.length + " bytes, more than " + MAX_INLINE_BYTES);
        }
    }
}
