package dev.knotless.node.protocol;

/** A report signed by the node that made it, at the time it made it (epoch milliseconds, UTC). */
public record Observation(int version, String node, long observedAt, Report report) {

    public static final int VERSION = 1;

    public Observation {
        if (version != VERSION) {
            throw new IllegalArgumentException("observation version " + version + " is not supported (only " + VERSION + ")");
        }
        Names.node(node);
        if (observedAt < 0) {
            throw new IllegalArgumentException("observedAt must be non-negative epoch milliseconds");
        }
        if (report == null) {
            throw new IllegalArgumentException("report is missing");
        }
    }
}
