package dev.knotless.executor.node;

import dev.knotless.executor.Labels;
import dev.knotless.executor.toolkit.RunnerLabel;
import dev.knotless.executor.SweepReport;
import dev.knotless.executor.TransferLimitException;
import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what a runner left on its nodes ({@link NodeExecutor#sweep}): the allocations of its runs
 * that are no longer going, and the orphans nodes report. It keeps the last request, because nodes
 * dial back after a restarted runner's sweep: each that connects later is swept with it.
 */
final class NodeSweeper {

    private static final Logger LOG = LoggerFactory.getLogger(NodeSweeper.class);

    /** The last sweep asked for: a node that connects later gets it too (see {@link #sweepLateNode}). */
    private record SweepRequest(String runnerId, Set<String> goingRuns) {}

    private final NodeHub hub;
    private final NodeCalls calls;
    private final Placements placements;
    private volatile @Nullable SweepRequest lastSweep;

    NodeSweeper(NodeHub hub, NodeCalls calls, Placements placements) {
        this.hub = hub;
        this.calls = calls;
        this.placements = placements;
    }

    SweepReport sweep(String runnerId, Set<String> goingRuns) {
        lastSweep = new SweepRequest(runnerId, Set.copyOf(goingRuns));
        List<String> removed = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (String node : hub.connected()) {
            sweepNode(node, runnerId, goingRuns, false, removed, failed);
        }
        return new SweepReport(removed, failed);
    }

    /**
     * A runner sweeps when it starts, often before its nodes have dialled back. A node that connects
     * later is swept with the last request, sparing every allocation this executor made since (its
     * placements): those belong to runs that started after the sweep.
     */
    void sweepLateNode(String node) {
        SweepRequest request = lastSweep;
        if (request == null) {
            return;
        }
        List<String> removed = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        sweepNode(node, request.runnerId(), request.goingRuns(), true, removed, failed);
        if (!removed.isEmpty() || !failed.isEmpty()) {
            LOG.info("swept a node that connected after the sweep node={} removed={} failed={}", node, removed, failed);
        }
    }

    private void sweepNode(String node, String runnerId, Set<String> goingRuns, boolean spareOwn, List<String> removed,
            List<String> failed) {
        try {
            Result.AllocationList list = calls.call(node, new Action.ListAllocations(node), Result.AllocationList.class);
            for (Result.Allocation a : list.allocations()) {
                if (ownedBy(a, runnerId) && !goingRuns.contains(a.labels().get(Labels.RUN))
                        && !(spareOwn && placements.holds(a.allocation()))) {
                    sweepOne(node, a.allocation(), removed, failed);
                }
            }
            for (String orphan : hub.orphans(node)) {
                sweepOne(node, orphan, removed, failed);
            }
            hub.orphansDeleted(node, removed.stream().map(r -> r.substring(r.indexOf('/') + 1)).toList());
        } catch (NodeCalls.LinkLost | NodeCalls.Refused | TransferLimitException e) {
            failed.add("node " + node + ": " + e.getMessage());
        }
    }

    /**
     * Whether {@code runnerId} made allocation {@code a}: its label is the runner's label form, and its id is
     * the one {@link NodeExecutor#allocationId} derives from the raw runner id and the run. The label alone is a
     * selector (a DID's label form is a prefix and a hash); the id compares the raw runner id, so one
     * runner never sweeps another's on a shared node.
     */
    static boolean ownedBy(Result.Allocation a, String runnerId) {
        String run = a.labels().get(Labels.RUN);
        return RunnerLabel.of(runnerId).equals(a.labels().get(Labels.RUNNER)) && run != null
                && a.allocation().equals(NodeExecutor.allocationId(runnerId, run));
    }

    private void sweepOne(String node, String allocation, List<String> removed, List<String> failed) {
        try {
            calls.call(node, new Action.DeleteAllocation(node, allocation), Result.Done.class);
            placements.forget(allocation);
            removed.add(node + "/" + allocation);
            LOG.info("swept allocation node={} allocation={}", node, allocation);
        } catch (NodeCalls.LinkLost | NodeCalls.Refused | TransferLimitException e) {
            failed.add(node + "/" + allocation + ": " + e.getMessage());
        }
    }
}
