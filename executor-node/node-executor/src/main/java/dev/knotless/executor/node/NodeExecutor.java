package dev.knotless.executor.node;

import dev.knotless.executor.Executor;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Hardening;
import dev.knotless.executor.Labels;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.Resumption;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.toolkit.RunnerLabel;
import dev.knotless.executor.toolkit.ServiceReadiness;
import dev.knotless.executor.ServiceSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.SweepReport;
import dev.knotless.executor.TransferLimitException;
import dev.knotless.executor.Trust;
import dev.knotless.executor.UntrustedNetwork;
import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Booking;
import dev.knotless.node.protocol.Names;
import dev.knotless.node.protocol.ProcessHardening;
import dev.knotless.node.protocol.Result;
import dev.knotless.node.protocol.ServiceContainer;
import dev.knotless.node.protocol.Signer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each run in an allocation on one of the runner's nodes, driving the node agent with signed
 * actions over the channel the node dialled ({@link NodeHub}).
 *
 * <p>Placement ({@link Placements}, which {@link NodePlacement} decides for): a trusted run goes to
 * a connected node that no untrusted run holds and where its CPU and memory fit (the node's
 * reported capacity less what is allocated there), the best fit first; an untrusted run gets a
 * node of its own (one with no allocation at all), holds it until it ends, and is never attached
 * to a network. With no such node the start waits up to {@link Options#placementWait()}, then
 * fails as unschedulable; a run larger than every connected node fails at once.
 */
public final class NodeExecutor implements Executor, Resumption {

    private static final Logger LOG = LoggerFactory.getLogger(NodeExecutor.class);
    static final long DEFAULT_MILLI_CPU = 1000;
    static final long DEFAULT_MEMORY = 2L << 30;

    /**
     * @param network        the node network trusted runs join ({@code attach_network}); empty: none
     * @param placementWait  how long a start waits for a node that can take the run
     * @param reattachWindow how long a step waits for its node to come back after the link broke
     */
    public record Options(Optional<String> network, Duration placementWait, Duration reattachWindow) {
        public static final Options DEFAULT = new Options(Optional.of("default"), Duration.ofSeconds(30), Duration.ofMinutes(2));
    }

    private final NodeHub hub;
    private final NodeCalls calls;
    private final Options options;
    private final Placements placements;
    private final NodeSweeper sweeper;

    public NodeExecutor(NodeHub hub, Signer signer, Clock clock, Options options) {
        this(hub, signer, clock, options, Set::of);
    }

    /** @param drained the nodes placement skips for new runs ({@link NodeDrains}); runs on them finish */
    public NodeExecutor(NodeHub hub, Signer signer, Clock clock, Options options, Supplier<Set<String>> drained) {
        this.hub = hub;
        this.calls = new NodeCalls(hub, signer, clock);
        this.options = options;
        this.placements = new Placements(hub, calls, options.placementWait(), drained);
        this.sweeper = new NodeSweeper(hub, calls, placements);
        hub.onConnect((node, orphans) -> sweeper.sweepLateNode(node));
    }

    /** What this runner knows of each node now, for the fleet view ({@link FleetSnapshot}). */
    public List<FleetSnapshot.Node> fleet() {
        return placements.fleet();
    }

    /** When a restarted runner stops waiting for its nodes to dial back: set by the first resume. */
    private final AtomicLong nodesAwaitedUntil = new AtomicLong();

    @Override
    public String name() {
        return "node";
    }

    /** An untrusted allocation is never attached to a network: its runc namespace has only loopback. */
    @Override
    public UntrustedNetwork untrustedNetwork() {
        return UntrustedNetwork.NO_INTERFACE;
    }

    @Override
    public Session start(RunSpec spec, StopSignal signal) throws ExecutorException {
        String image = pinned(spec.image());
        List<ServiceContainer> services = new ArrayList<>();
        for (ServiceSpec service : spec.services()) {
            services.add(serviceContainer(service));
        }
        String allocation = allocationId(spec.runnerId(), spec.runId());
        boolean untrusted = spec.trust() == Trust.UNTRUSTED;
        long deadline = System.nanoTime() + options.placementWait().toNanos();
        while (true) {
            Placements.Placement placement = placements.place(allocation, untrusted, Placements.request(spec), signal, deadline);
            try {
                return startOn(placement, spec, image, services, signal);
            } catch (NoRoom e) {
                // Another runner sharing the node booked the room first; the node's list now says so.
                placements.refused(placement);
                LOG.info("node had no room, placing again allocation={} node={} reason={}", allocation, placement.node(), e.getMessage());
                if (System.nanoTime() > deadline) {
                    throw new ExecutorException(Failure.Kind.UNSCHEDULABLE, "no node can take the run: " + e.getMessage());
                }
                pause(signal);
            }
        }
    }

    /** The node refused the allocation's booking ({@link Booking#NO_ROOM}): nothing was made there. */
    private static final class NoRoom extends Exception {
        NoRoom(String message) {
            super(message);
        }
    }

    private Session startOn(Placements.Placement placement, RunSpec spec, String image, List<ServiceContainer> services, StopSignal signal)
            throws ExecutorException, NoRoom {
        String node = placement.node();
        String allocation = placement.allocation();
        boolean untrusted = placement.exclusive();
        boolean created = false;
        try {
            call(node, new Action.PullImage(node, image), signal, Result.Done.class, Failure.Kind.IMAGE,
                    "image '" + spec.image() + "' cannot be pulled on node " + node + ": ");
            for (ServiceContainer service : services) {
                call(node, new Action.PullImage(node, service.image()), signal, Result.Done.class, Failure.Kind.SERVICE,
                        "service '" + service.name() + "': image '" + service.image() + "' cannot be pulled on node " + node + ": ");
            }
            long cpu = spec.resources().milliCpu() > 0 ? spec.resources().milliCpu() : DEFAULT_MILLI_CPU;
            long memory = spec.resources().memoryBytes() > 0 ? spec.resources().memoryBytes() : DEFAULT_MEMORY;
            Action.CreateAllocation create = new Action.CreateAllocation(node, allocation, image, cpu, Math.max(memory, 4L << 20),
                    labels(spec, placement.booking()), hardening(spec.hardening()), lifetimeMs(spec), services);
            try {
                created = true;
                calls.call(node, create, Result.Done.class, null, NodeCalls.ChunkHandler.NONE, signal);
            } catch (NodeCalls.Refused e) {
                if (e.getMessage().startsWith(Booking.NO_ROOM)) {
                    created = false;
                    throw new NoRoom(node + ": " + e.getMessage());
                }
                throw e;
            }
            if (!untrusted && options.network().isPresent()) {
                call(node, new Action.AttachNetwork(node, allocation, options.network().get()), signal, Result.Done.class,
                        Failure.Kind.INFRASTRUCTURE, "");
            }
            call(node, new Action.StartAllocation(node, allocation), signal, Result.AllocationRunning.class,
                    Failure.Kind.INFRASTRUCTURE, "");
            LOG.info("allocation started node={} allocation={} run={} trust={} services={}", node, allocation, spec.runId(),
                    spec.trust(), services.size());
            NodeSession session = new NodeSession(this, spec, node, allocation, List.of());
            // the node sees a service's port from the run's own namespace, through the same probe as every executor
            new ServiceReadiness().await(session, spec, ServiceReadiness.Watch.NOTHING, signal);
            return session;
        } catch (NodeCalls.Refused | NodeCalls.LinkLost | TransferLimitException e) {
            ExecutorException failure = signal.isStopped()
                    ? new ExecutorException(Failure.Kind.STOPPED, "stopped while starting on node " + node)
                    : failure(e, Failure.Kind.INFRASTRUCTURE, "");
            cleanUp(node, allocation, created);
            throw failure;
        } catch (ExecutorException e) {
            cleanUp(node, allocation, created);
            throw e;
        }
    }

    private void cleanUp(String node, String allocation, boolean created) {
        if (created) {
            delete(node, allocation);
        } else {
            placements.forget(allocation);
        }
    }

    private static void pause(StopSignal signal) throws ExecutorException {
        if (signal.isStopped()) {
            throw new ExecutorException(Failure.Kind.STOPPED, "stopped while waiting for a node");
        }
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExecutorException(Failure.Kind.STOPPED, "interrupted while waiting for a node");
        }
    }

    /** A service as the node takes it: its image pinned, its variables as {@code NAME=value}, in order. */
    private static ServiceContainer serviceContainer(ServiceSpec service) throws ExecutorException {
        String image;
        try {
            image = pinned(service.image());
        } catch (ExecutorException e) {
            throw new ExecutorException(Failure.Kind.SERVICE, "service '" + service.name() + "': " + e.getMessage());
        }
        List<String> env = service.variables().entrySet().stream().map(v -> v.getKey() + "=" + v.getValue()).toList();
        try {
            return new ServiceContainer(service.name(), image, env, service.command());
        } catch (IllegalArgumentException e) {
            throw new ExecutorException(Failure.Kind.SERVICE, "service '" + service.name() + "': " + e.getMessage());
        }
    }

    @Override
    public Optional<Resumption> resumption() {
        return Optional.of(this);
    }

    /**
     * Finds the run's allocation (its id is derived from runner and run) on the node that holds it,
     * running: steps outlive the runner, so the session follows the one that was going. The first
     * call waits up to the placement wait for every node of the nodes file to dial this process;
     * later calls wait only for what is left of that.
     */
    @Override
    public Optional<ResumedSession> resume(RunSpec spec) {
        String allocation = allocationId(spec.runnerId(), spec.runId());
        nodesAwaitedUntil.compareAndSet(0, System.nanoTime() + options.placementWait().toNanos());
        try {
            hub.awaitAll(Duration.ofNanos(Math.max(0, nodesAwaitedUntil.get() - System.nanoTime())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        for (String node : hub.connected()) {
            Result.AllocationList list;
            try {
                list = placements.recentList(node, LISTING_FRESH, StopSignal.none());
            } catch (NodeCalls.LinkLost | NodeCalls.Refused | TransferLimitException e) {
                LOG.warn("resume could not list node={} run={} reason={}", node, spec.runId(), e.getMessage());
                continue;
            }
            for (Result.Allocation a : list.allocations()) {
                if (!a.allocation().equals(allocation)) {
                    continue;
                }
                if (a.state() != Result.State.RUNNING || !spec.runId().equals(a.labels().get(Labels.RUN))) {
                    LOG.info("resume refused node={} allocation={} run={} state={}", node, allocation, spec.runId(), a.state());
                    return Optional.empty();
                }
                placements.resumed(new Placements.Placement(node, allocation, spec.trust() == Trust.UNTRUSTED, Placements.request(spec)));
                LOG.info("allocation resumed node={} allocation={} run={} steps={}", node, allocation, spec.runId(), a.steps());
                return Optional.of(new NodeSession(this, spec, node, allocation, a.steps()));
            }
        }
        LOG.info("resume refused allocation={} run={} reason=no connected node holds it", allocation, spec.runId());
        return Optional.empty();
    }

    /** How long a listing serves the resumes of a restart: they come in a burst, one per run. */
    private static final Duration LISTING_FRESH = Duration.ofSeconds(5);

    /** The allocation's lifetime on the node: the run's backstop ({@link RunSpec#backstop}). */
    static long lifetimeMs(RunSpec spec) {
        long ms = spec.backstop().toMillis();
        return Math.min(Action.MAX_LIFETIME_MS, Math.max(1, ms));
    }

    /** Closes the hub it was given: nodes lose their connection and dial again until a runner listens. */
    @Override
    public void close() {
        hub.close();
    }

    @Override
    public SweepReport sweep(String runnerId, Set<String> goingRuns) {
        return sweeper.sweep(runnerId, goingRuns);
    }

    // ---- used by sessions ----------------------------------------------------------------------

    NodeCalls calls() {
        return calls;
    }

    NodeHub hub() {
        return hub;
    }

    Options options() {
        return options;
    }

    /** Deletes the allocation (best effort, logged) and frees its place. */
    void delete(String node, String allocation) {
        try {
            calls.call(node, new Action.DeleteAllocation(node, allocation), Result.Done.class);
            LOG.info("allocation deleted node={} allocation={}", node, allocation);
        } catch (NodeCalls.LinkLost | NodeCalls.Refused | TransferLimitException e) {
            LOG.warn("allocation delete failed node={} allocation={} reason={}", node, allocation, e.getMessage());
        } finally {
            placements.released(node, allocation);
        }
    }

    // ---- helpers -------------------------------------------------------------------------------

    /** One action of a start; {@code signal} (the run's cancel) ends the wait for the node's answer. */
    private <R extends Result> R call(String node, Action action, StopSignal signal, Class<R> expected, Failure.Kind kind,
            String prefix) throws ExecutorException {
        try {
            return calls.call(node, action, expected, null, NodeCalls.ChunkHandler.NONE, signal);
        } catch (NodeCalls.Refused | NodeCalls.LinkLost | TransferLimitException e) {
            if (signal.isStopped()) {
                throw new ExecutorException(Failure.Kind.STOPPED, "stopped while starting on node " + node);
            }
            throw failure(e, kind, prefix);
        }
    }

    private static ExecutorException failure(Exception e, Failure.Kind kind, String prefix) {
        return switch (e) {
            case NodeCalls.WrongAnswer w -> new ExecutorException(Failure.Kind.INFRASTRUCTURE, w.getMessage());
            // the node names a service whose container it could not make or start (RuncRuntime)
            case NodeCalls.Refused r -> new ExecutorException(
                    prefix.isEmpty() && r.getMessage().startsWith("service '") ? Failure.Kind.SERVICE : kind, prefix + r.getMessage());
            case TransferLimitException t -> new ExecutorException(Failure.Kind.LIMIT, t.getMessage());
            default -> new ExecutorException(Failure.Kind.INFRASTRUCTURE, e.getMessage());
        };
    }

    /** The seam's hardening as the signed action carries it: the node applies exactly this. */
    static ProcessHardening hardening(Hardening h) {
        String user = h.user() instanceof Hardening.User.Ids ids ? ids.uid() + ":" + ids.gid() : ProcessHardening.IMAGE_USER;
        return new ProcessHardening(h.capabilities(), h.noNewPrivileges(), h.pidsLimit(), h.readOnlyPaths(), user);
    }

    /**
     * The allocation's labels: the booking first (other runners and the node read it), then the
     * runner and the run, then the run's own labels while they fit the protocol's count. A label
     * the node cannot carry is the runner's bookkeeping only, and is left off.
     */
    static Map<String, String> labels(RunSpec spec, Booking booking) {
        Map<String, String> labels = new java.util.TreeMap<>(booking.labels());
        labels.put(Labels.RUNNER, RunnerLabel.of(spec.runnerId())); // a DID has characters the protocol's values lack
        labels.put(Labels.RUN, spec.runId());
        spec.allLabels().forEach((k, v) -> {
            try {
                if (labels.size() < Action.MAX_LABELS && !labels.containsKey(k)) {
                    labels.putAll(Names.labels(Map.of(k, v)));
                }
            } catch (IllegalArgumentException e) {
                // not carried: see above
            }
        });
        return labels;
    }

    /** The image as the node takes it: pinned by digest. */
    static String pinned(String image) throws ExecutorException {
        try {
            return Names.image(image);
        } catch (IllegalArgumentException e) {
            throw new ExecutorException(Failure.Kind.IMAGE, "image '" + image
                    + "' is not pinned by digest; the node executor runs images by digest only (name@sha256:<64 hex>),"
                    + " and the runner pins a tag only where the name spells out its registry (host/name:tag)");
        }
    }

    /** A stable allocation id for a run of a runner: {@code kn-} and 24 hex digits of their hash. */
    static String allocationId(String runnerId, String runId) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update((runnerId + "\0" + runId).getBytes(StandardCharsets.UTF_8));
            return "kn-" + HexFormat.of().formatHex(sha.digest(), 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
