package dev.knotless.node.allocation;

import dev.knotless.node.protocol.ProcessHardening;
import dev.knotless.node.protocol.ServiceContainer;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the node keeps about one allocation it was told to create, in
 * {@code allocations/<id>/allocation.json}: enough to list it, to rebuild its bundle, and to
 * tell a repeated create from a conflicting one. A record written before {@code hardening} existed
 * reads as the default, which is what such an allocation was asked for.
 *
 * @param endsAtMs when the node ends and removes the allocation by itself (epoch milliseconds of
 *     the node's clock, fixed at the first create so that a repeated create moves nothing); 0 for
 *     none, as a record written before the deadline existed reads
 */
public record AllocationRecord(String allocation, String image, long cpuMillis, long memoryBytes, Map<String, String> labels,
        ProcessHardening hardening, long endsAtMs, List<ServiceContainer> services) {
    public AllocationRecord {
        labels = Collections.unmodifiableMap(new TreeMap<>(labels));
        hardening = hardening == null ? ProcessHardening.DEFAULT : hardening;
        services = services == null ? List.of() : List.copyOf(services); // a record written before services: none
    }

    public AllocationRecord(String allocation, String image, long cpuMillis, long memoryBytes, Map<String, String> labels,
            ProcessHardening hardening, long endsAtMs) {
        this(allocation, image, cpuMillis, memoryBytes, labels, hardening, endsAtMs, List.of());
    }

    /** The runc id of its {@code index}th service (from 1): {@code <allocation>-s<index>}, short enough for any allocation id runc takes. */
    public String serviceId(int index) {
        return allocation + "-s" + index;
    }

    /** The runc ids of its services, in order. */
    public List<String> serviceIds() {
        return java.util.stream.IntStream.rangeClosed(1, services.size()).mapToObj(this::serviceId).toList();
    }

    public AllocationRecord(String allocation, String image, long cpuMillis, long memoryBytes, Map<String, String> labels) {
        this(allocation, image, cpuMillis, memoryBytes, labels, ProcessHardening.DEFAULT, 0);
    }

    public AllocationRecord(String allocation, String image, long cpuMillis, long memoryBytes, Map<String, String> labels,
            ProcessHardening hardening) {
        this(allocation, image, cpuMillis, memoryBytes, labels, hardening, 0);
    }

    /** Whether the node's own deadline for it has passed at {@code nowMs}. */
    public boolean overdue(long nowMs) {
        return endsAtMs > 0 && nowMs >= endsAtMs;
    }
}
