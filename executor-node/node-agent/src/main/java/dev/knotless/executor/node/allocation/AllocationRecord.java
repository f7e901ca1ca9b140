package dev.knotless.executor.node.allocation;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the node keeps about one allocation it was told to create, in
 * {@code allocations/<id>/allocation.json}: enough to list it, to rebuild its bundle, and to
 * tell a repeated create from a conflicting one.
 */
public record AllocationRecord(String allocation, String image, long cpuMillis, long memoryBytes, Map<String, String> labels) {
    public AllocationRecord {
        labels = Collections.unmodifiableMap(new TreeMap<>(labels));
    }
}
