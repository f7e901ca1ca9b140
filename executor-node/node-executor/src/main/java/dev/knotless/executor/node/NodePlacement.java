package dev.knotless.executor.node;

import dev.knotless.node.protocol.NodeStatus;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Where a run goes, decided from what is known now and nothing else (no clock, no hub), so every
 * case is a unit test. A node's room is its capacity (its signed status) minus what this runner
 * has allocated there.
 *
 * <ul>
 *   <li>Among the open nodes where the request fits now: best fit, the least memory left over,
 *       then the fewest allocations, then the node id (so the choice is stable). A run that asks
 *       for nothing fits everywhere and goes to the fewest allocations: best fit would pile every
 *       such run onto the fullest node.
 *   <li>Else an open node of unknown capacity (an agent older than the status report, or one whose
 *       status has not arrived yet): the fewest allocations, as before capacities were known.
 *   <li>Else, if some connected node is large enough when its runs end (or its capacity is
 *       unknown, or no node is connected at all): wait.
 *   <li>Else no connected node could ever take it: refuse at once, naming the largest.
 * </ul>
 */
final class NodePlacement {

    private NodePlacement() {}

    /** What a run asks for: thousandths of a CPU and bytes of memory; zero: nothing asked. */
    record Request(long milliCpu, long memoryBytes) {
        boolean isNothing() {
            return milliCpu == 0 && memoryBytes == 0;
        }
    }

    /**
     * A connected node. {@code open}: placement may use it for this run (not drained, not held by an
     * untrusted run, empty if the run is untrusted). {@code capacity} is empty when unknown.
     */
    record Candidate(String node, boolean open, Optional<NodeStatus.Capacity> capacity, long allocatedMilliCpu,
            long allocatedMemory, int allocations) {

        boolean fitsNow(Request r) {
            return capacity.isPresent() && capacity.get().milliCpu() - allocatedMilliCpu >= r.milliCpu()
                    && capacity.get().memoryBytes() - allocatedMemory >= r.memoryBytes();
        }

        boolean couldEverFit(Request r) {
            return capacity.isEmpty() || capacity.get().milliCpu() >= r.milliCpu() && capacity.get().memoryBytes() >= r.memoryBytes();
        }

        long memoryLeftAfter(Request r) {
            return capacity.orElseThrow().memoryBytes() - allocatedMemory - r.memoryBytes();
        }
    }

    sealed interface Decision {
        record Place(String node) implements Decision {}

        /** Nothing fits now; something may when runs end (or nodes connect). */
        record Wait(String reason) implements Decision {}

        /** No connected node could take the run even empty; waiting would not help. */
        record Refuse(String reason) implements Decision {}
    }

    static Decision decide(Request request, List<Candidate> connected) {
        Comparator<Candidate> fewest = Comparator.comparingInt(Candidate::allocations).thenComparing(Candidate::node);
        Optional<Candidate> best = connected.stream().filter(Candidate::open).filter(c -> c.capacity().isPresent() || request.isNothing())
                .filter(c -> request.isNothing() || c.fitsNow(request))
                .min(request.isNothing() ? fewest
                        : Comparator.comparingLong((Candidate c) -> c.memoryLeftAfter(request)).thenComparing(fewest));
        if (best.isPresent()) {
            return new Decision.Place(best.get().node());
        }
        Optional<Candidate> unknown = connected.stream().filter(Candidate::open).filter(c -> c.capacity().isEmpty())
                .min(Comparator.comparingInt(Candidate::allocations).thenComparing(Candidate::node));
        if (unknown.isPresent()) {
            return new Decision.Place(unknown.get().node());
        }
        if (connected.isEmpty() || connected.stream().anyMatch(c -> c.couldEverFit(request))) {
            return new Decision.Wait(connected.isEmpty() ? "no node is connected"
                    : "no node has room for " + describe(request) + " now");
        }
        return new Decision.Refuse(refusal(request, connected));
    }

    /** One line: which part of the request no node has, and the largest node's. */
    private static String refusal(Request request, List<Candidate> connected) {
        Candidate byMemory = connected.stream().max(Comparator.comparingLong((Candidate c) -> c.capacity().orElseThrow().memoryBytes())
                .thenComparing(Candidate::node, Comparator.reverseOrder())).orElseThrow();
        Candidate byCpu = connected.stream().max(Comparator.comparingLong((Candidate c) -> c.capacity().orElseThrow().milliCpu())
                .thenComparing(Candidate::node, Comparator.reverseOrder())).orElseThrow();
        long mostMemory = byMemory.capacity().orElseThrow().memoryBytes();
        long mostCpu = byCpu.capacity().orElseThrow().milliCpu();
        if (request.memoryBytes() > mostMemory) {
            return "no node can take " + bytes(request.memoryBytes()) + " of memory: the largest, " + byMemory.node() + ", has "
                    + bytes(mostMemory);
        }
        if (request.milliCpu() > mostCpu) {
            return "no node can take " + cpus(request.milliCpu()) + ": the largest, " + byCpu.node() + ", has " + cpus(mostCpu);
        }
        return "no node can take " + describe(request) + ": none has both (most memory: " + byMemory.node() + ", "
                + bytes(mostMemory) + "; most CPU: " + byCpu.node() + ", " + cpus(mostCpu) + ")";
    }

    static String describe(Request r) {
        if (r.milliCpu() == 0) {
            return bytes(r.memoryBytes()) + " of memory";
        }
        return r.memoryBytes() == 0 ? cpus(r.milliCpu()) : cpus(r.milliCpu()) + " and " + bytes(r.memoryBytes()) + " of memory";
    }

    /** {@code 2 CPUs}, {@code 1 CPU}, {@code 0.5 CPU}. */
    static String cpus(long milliCpu) {
        String n = milliCpu % 1000 == 0 ? Long.toString(milliCpu / 1000)
                : new java.math.BigDecimal(milliCpu).movePointLeft(3).stripTrailingZeros().toPlainString();
        return n + (milliCpu == 1000 || milliCpu < 1000 ? " CPU" : " CPUs");
    }

    /** Binary units, one decimal where it matters: {@code 64 GiB}, {@code 15.6 GiB}, {@code 512 MiB}. */
    static String bytes(long n) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = n;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        String s = String.format(Locale.ROOT, "%.1f", v);
        return (s.endsWith(".0") ? s.substring(0, s.length() - 2) : s) + " " + units[u];
    }
}
