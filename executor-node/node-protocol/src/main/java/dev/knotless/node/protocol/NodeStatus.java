package dev.knotless.node.protocol;

import java.util.List;

/**
 * The node's hello: what it can hold and how it is, sent signed on every connection (after its
 * orphans) and again when its capacity changes materially. A report type of its own rather than
 * fields on an older one, because the protocol's JSON is strict: an agent that predates it simply
 * never sends one, and the runner treats that node's capacity as unknown. The node's clock is the
 * observation's own {@code observedAt}, so it is signed with the rest.
 */
public record NodeStatus(Capacity capacity, Health health) implements Report {

    public NodeStatus {
        if (capacity == null || health == null) {
            throw new IllegalArgumentException("capacity and health are required");
        }
    }

    /**
     * What the node offers runs: CPU in thousandths of a CPU, memory in bytes (both what the
     * operator declared, or the machine's), and the free space of its state directory in bytes.
     */
    public record Capacity(long milliCpu, long memoryBytes, long freeDiskBytes) {
        public Capacity {
            if (milliCpu <= 0 || memoryBytes <= 0 || freeDiskBytes < 0) {
                throw new IllegalArgumentException("capacity must be positive (free disk non-negative)");
            }
        }
    }

    /**
     * The agent's own version ({@code dev} when built outside a release), and the runtime pieces it
     * found: runc's version ({@code none} if not found) and its CNI plugins.
     */
    public record Health(String agent, String runc, List<String> cniPlugins) {

        public static final int MAX_PLUGINS = 64;

        public Health {
            printable("agent", agent);
            printable("runc", runc);
            cniPlugins = List.copyOf(cniPlugins);
            if (cniPlugins.size() > MAX_PLUGINS || !cniPlugins.stream().allMatch(p -> p.matches("[A-Za-z0-9._-]{1,64}"))) {
                throw new IllegalArgumentException("cniPlugins must be at most " + MAX_PLUGINS + " plugin file names");
            }
        }

        private static void printable(String field, String value) {
            if (value == null || value.isBlank() || value.length() > 100 || !value.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
                throw new IllegalArgumentException(field + " must be 1-100 printable ASCII characters");
            }
        }
    }
}
