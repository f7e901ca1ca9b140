package dev.knotless.executor.node;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.TransferLimitException;
import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Booking;
import dev.knotless.node.protocol.Result;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this runner holds on each node, and where a new run goes ({@link NodePlacement} decides).
 *
 * <p>A node's capacity is shared with the other runners it serves: what they hold is read from
 * the node's signed allocation list (cached briefly, {@link #recentList}), what this runner holds
 * from its own placements. Every placement is made under one lock, so two starts of this runner
 * never book the same room; a node's booking refusal ({@link Booking#NO_ROOM}) settles races with
 * other runners.
 *
 * <p>Concurrency: thread-safe. {@link #place} waits on the lock, woken when a run's allocation is
 * {@link #released}.
 */
final class Placements {

    private static final Logger LOG = LoggerFactory.getLogger(Placements.class);

    /**
     * How long after a node connects placement waits for its status before taking its capacity as
     * unknown (an agent older than the status report never sends one). Without it, runs queued at a
     * daemon's start went to the first node to dial back, whatever their size.
     */
    static final Duration STATUS_GRACE = Duration.ofSeconds(2);
    /** How old a node's allocation list may be for placement: runners that share a node book it a few times a second at most. */
    static final Duration PLACEMENT_FRESH = Duration.ofSeconds(1);
    /**
     * How long placement waits for a node's list. A node that does not answer in that time is
     * taken to hold nothing more for {@link #PLACEMENT_FRESH}: placement runs under one lock, and a
     * node that hangs must not hold every start with it. The node itself still refuses a booking
     * that does not fit.
     */
    static final Duration PLACEMENT_LIST_TIMEOUT = Duration.ofSeconds(2);

    /** What a node holds for this runner: the allocation, what it asked for, and whether an untrusted run owns the node. */
    record Placement(String node, String allocation, boolean exclusive, NodePlacement.Request request) {
        Booking booking() {
            return new Booking(request.milliCpu(), request.memoryBytes(), exclusive);
        }
    }

    /** What allocations hold of one node: how many, and what they booked. */
    private record Held(int allocations, Booking booked) {
        static final Held NOTHING = new Held(0, Booking.NONE);

        Held plus(Held other) {
            return new Held(allocations + other.allocations, booked.plus(other.booked));
        }
    }

    /** A node's allocations as listed at a moment (monotonic nanos). */
    private record Listing(long at, Result.AllocationList list) {}

    private final NodeHub hub;
    private final NodeCalls calls;
    private final Duration placementWait;
    private final Supplier<Set<String>> drained;
    private final ConcurrentHashMap<String, Placement> placements = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Listing> listings = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Long> unlisted = new ConcurrentHashMap<>();
    private final Object placing = new Object();

    /** @param drained the nodes placement skips for new runs ({@link NodeDrains}); runs on them finish */
    Placements(NodeHub hub, NodeCalls calls, Duration placementWait, Supplier<Set<String>> drained) {
        this.hub = hub;
        this.calls = calls;
        this.placementWait = placementWait;
        this.drained = drained;
    }

    /**
     * What the run holds on its node for placement: what it asked for (after the runner's ceilings
     * and defaults), zero where it asked for nothing. The executor's own defaults are limits on the
     * allocation, not a reservation: counting them would let a 2-CPU node take two runs that never
     * said what they need, where before it took any number.
     */
    static NodePlacement.Request request(RunSpec spec) {
        return new NodePlacement.Request(spec.resources().milliCpu(), spec.resources().memoryBytes());
    }

    /**
     * A node for the allocation, booked for it: waits while placement says wait, up to {@code
     * deadline} (monotonic nanos); refused at once when no connected node could ever take it.
     */
    Placement place(String allocation, boolean untrusted, NodePlacement.Request request, StopSignal signal, long deadline)
            throws ExecutorException {
        synchronized (placing) {
            while (true) {
                NodePlacement.Decision decision = NodePlacement.decide(request, candidates(untrusted));
                if (decision instanceof NodePlacement.Decision.Place(String node)) {
                    Placement p = new Placement(node, allocation, untrusted, request);
                    placements.put(allocation, p);
                    return p;
                }
                if (decision instanceof NodePlacement.Decision.Refuse(String reason)) {
                    LOG.info("run refused by placement allocation={} reason={}", allocation, reason);
                    throw new ExecutorException(Failure.Kind.UNSCHEDULABLE, reason);
                }
                if (signal.isStopped()) {
                    throw new ExecutorException(Failure.Kind.STOPPED, "stopped while waiting for a node");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new ExecutorException(Failure.Kind.UNSCHEDULABLE,
                            unschedulable(untrusted, request, (NodePlacement.Decision.Wait) decision));
                }
                try {
                    placing.wait(Math.max(1, Math.min(200, left / 1_000_000)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ExecutorException(Failure.Kind.STOPPED, "interrupted while waiting for a node");
                }
            }
        }
    }

    /** A resumed run's allocation, held again as it was before the restart. */
    void resumed(Placement placement) {
        placements.put(placement.allocation(), placement);
    }

    /** The node refused the booking: nothing was made there, and its list is read again before the next placement. */
    void refused(Placement placement) {
        placements.remove(placement.allocation());
        listings.remove(placement.node());
    }

    /** Nothing was made for the allocation (its start failed before the node created it). */
    void forget(String allocation) {
        placements.remove(allocation);
    }

    /** The allocation is gone from {@code node}: its room is free, and starts waiting for room look again. */
    void released(String node, String allocation) {
        placements.remove(allocation);
        listings.remove(node);
        synchronized (placing) {
            placing.notifyAll();
        }
    }

    /** Whether the allocation is one this runner placed (or resumed) since it started. */
    boolean holds(String allocation) {
        return placements.containsKey(allocation);
    }

    /** What this runner knows of each node now, for the fleet view ({@link FleetSnapshot}). */
    List<FleetSnapshot.Node> fleet() {
        Map<String, Held> held = heldByNode();
        Set<String> connected = hub.connected();
        Set<String> off = drained.get();
        Set<String> ids = new TreeSet<>(hub.known());
        ids.addAll(held.keySet());
        return ids.stream().map(n -> {
            Held h = held.getOrDefault(n, Held.NOTHING);
            return new FleetSnapshot.Node(n, hub.keyIdOf(n).orElse("-"), connected.contains(n), off.contains(n), hub.lastSeen(n),
                    h.allocations(), h.booked().milliCpu(), h.booked().memoryBytes(), hub.status(n).map(FleetSnapshot.Reported::of));
        }).toList();
    }

    /**
     * The node's allocations, listed again only when the last listing is older than {@code fresh}:
     * a restart resumes its runs one after the other, and listing a node with 50 allocations for
     * each of them made the recovery take tens of seconds. An allocation that stopped since is
     * found out by the step's follow, which then fails as lost.
     */
    Result.AllocationList recentList(String node, Duration fresh, StopSignal signal)
            throws NodeCalls.LinkLost, NodeCalls.Refused, TransferLimitException {
        Listing last = listings.get(node);
        if (last != null && System.nanoTime() - last.at() < fresh.toNanos()) {
            return last.list();
        }
        Result.AllocationList list = calls.call(node, new Action.ListAllocations(node), Result.AllocationList.class, null,
                NodeCalls.ChunkHandler.NONE, signal);
        listings.put(node, new Listing(System.nanoTime(), list));
        return list;
    }

    /** This runner's placements, per node. */
    private Map<String, Held> heldByNode() {
        Map<String, Held> held = new TreeMap<>();
        placements.values().forEach(p -> held.merge(p.node(), new Held(1, p.booking()), Held::plus));
        return held;
    }

    /** One line on why a run waited the whole node wait in vain. */
    private String unschedulable(boolean untrusted, NodePlacement.Request request, NodePlacement.Decision.Wait waited) {
        Set<String> connected = hub.connected();
        long seconds = placementWait.toSeconds();
        if (connected.isEmpty()) {
            return "no node is connected to this runner (waited " + seconds + " s)";
        }
        Set<String> off = drained.get();
        long drainedConnected = connected.stream().filter(off::contains).count();
        if (drainedConnected == connected.size()) {
            return "no node can take the run: every connected node (" + connected.size() + ") is drained";
        }
        List<NodePlacement.Candidate> all = candidates(false);
        String why;
        if (untrusted) {
            why = "none free for an untrusted run, which needs a node of its own";
        } else if (all.stream().anyMatch(NodePlacement.Candidate::open)) {
            why = waited.reason() + " (waited " + seconds + " s)";
        } else {
            why = "all held by untrusted runs";
        }
        // A drained node that could take the run is what an operator undrains: name it.
        List<String> drainedFits = all.stream().filter(c -> off.contains(c.node()) && c.capacity().isPresent() && c.couldEverFit(request))
                .map(NodePlacement.Candidate::node).sorted().toList();
        return "no node can take the run: " + connected.size() + " connected"
                + (drainedConnected > 0 ? " (" + drainedConnected + " drained)" : "") + ", " + why
                + (drainedFits.isEmpty() ? "" : "; large enough but drained: " + String.join(", ", drainedFits));
    }

    /**
     * The connected nodes as placement sees them for this run: open or not, their capacity, and
     * what is held there: by this runner (its placements) and by others that share the node (the
     * rest of the node's signed allocation list, at most {@link #PLACEMENT_FRESH} old).
     */
    private List<NodePlacement.Candidate> candidates(boolean untrusted) {
        Map<String, Held> mine = heldByNode();
        Set<String> off = drained.get();
        return hub.connected().stream().map(n -> {
            Held h = mine.getOrDefault(n, Held.NOTHING);
            boolean usable = !off.contains(n) && !hub.statusPending(n, STATUS_GRACE);
            if (usable) {
                // Only a node placement could use is asked for its list: a drained one is not.
                h = h.plus(heldByOthers(n));
            }
            boolean open = usable && !h.booked().exclusive() && (!untrusted || h.allocations() == 0);
            return new NodePlacement.Candidate(n, open, hub.status(n).map(s -> s.status().capacity()), h.booked().milliCpu(),
                    h.booked().memoryBytes(), h.allocations());
        }).toList();
    }

    /**
     * What the node's allocation list holds that is not this runner's placement: other runners'
     * allocations, and this runner's own from before a restart until they are resumed or swept.
     */
    private Held heldByOthers(String node) {
        Long failedAt = unlisted.get(node);
        if (failedAt != null && System.nanoTime() - failedAt < PLACEMENT_FRESH.toNanos()) {
            return Held.NOTHING;
        }
        Result.AllocationList list;
        try (StopSignal limit = StopSignal.none().child(PLACEMENT_LIST_TIMEOUT)) {
            list = recentList(node, PLACEMENT_FRESH, limit);
            unlisted.remove(node);
        } catch (NodeCalls.LinkLost | NodeCalls.Refused | TransferLimitException e) {
            unlisted.put(node, System.nanoTime());
            LOG.info("placement could not list node={} reason={}", node, e.getMessage());
            return Held.NOTHING;
        }
        Held held = Held.NOTHING;
        for (Result.Allocation a : list.allocations()) {
            if (a.state() != Result.State.STOPPED && !placements.containsKey(a.allocation())) {
                held = held.plus(new Held(1, Booking.of(a.labels())));
            }
        }
        return held;
    }
}
