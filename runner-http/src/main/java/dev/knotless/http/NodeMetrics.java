package dev.knotless.http;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The per-node gauges of {@code /metrics}, in Prometheus text format, from the fleet as {@code
 * /api/nodes} shows it. Written by hand rather than registered with Micrometer: the nodes come and
 * go between scrapes, and a series for a node the fleet no longer names must go with it, which
 * text made from each scrape's view gives without keeping state.
 *
 * <p>A node's value that the view does not know (null: no daemon reported lately, or the node
 * never sent its status) has no sample rather than a made-up zero.
 */
final class NodeMetrics {

    private NodeMetrics() {}

    /** One gauge family: its name, help, and each node's value (null: no sample for that node). */
    private record Family(String name, String help, Function<NodeFleet.Node, @Nullable String> value) {}

    private static final List<Family> FAMILIES = List.of(
            new Family("knotless_node_connected", "Whether the node is connected to this runner (1) or not (0)",
                    n -> n.connected() == null ? null : n.connected() ? "1" : "0"),
            new Family("knotless_node_drained", "Whether the node is drained: no new run is placed on it",
                    n -> n.drained() ? "1" : "0"),
            new Family("knotless_node_allocations", "Allocations this runner holds on the node",
                    n -> n.allocations() == null ? null : n.allocations().toString()),
            new Family("knotless_node_allocated_cpu", "CPU this runner's runs on the node asked for, in cores",
                    n -> n.allocated() == null ? null : thousandths(n.allocated().milliCpu())),
            new Family("knotless_node_allocated_memory_bytes", "Memory this runner's runs on the node asked for",
                    n -> n.allocated() == null ? null : Long.toString(n.allocated().memoryBytes())),
            new Family("knotless_node_capacity_cpu", "CPU the node offers runs, in cores, as it last reported",
                    n -> n.capacity() == null ? null : thousandths(n.capacity().milliCpu())),
            new Family("knotless_node_capacity_memory_bytes", "Memory the node offers runs, as it last reported",
                    n -> n.capacity() == null ? null : Long.toString(n.capacity().memoryBytes())),
            new Family("knotless_node_clock_skew_seconds", "The node's clock minus the runner's when it last reported",
                    n -> n.health() == null ? null : thousandths(n.health().clockSkewMillis())),
            new Family("knotless_node_last_seen_timestamp_seconds",
                    "When the runner last saw the node (connect or disconnect; now while connected), Unix time",
                    n -> n.lastSeen() == null ? null : epochSeconds(n.lastSeen())));

    /** The families with at least one sample, each with its HELP and TYPE lines. */
    static String text(NodeFleet.View view) {
        StringBuilder text = new StringBuilder();
        for (Family f : FAMILIES) {
            List<String> samples = new ArrayList<>();
            for (NodeFleet.Node n : view.nodes()) {
                String value = f.value().apply(n);
                if (value != null) {
                    samples.add(f.name() + "{node=\"" + labelValue(n.node()) + "\"} " + value + "\n");
                }
            }
            if (!samples.isEmpty()) {
                text.append("# HELP ").append(f.name()).append(' ').append(help(f.help())).append('\n')
                        .append("# TYPE ").append(f.name()).append(" gauge\n");
                samples.forEach(text::append);
            }
        }
        return text.toString();
    }

    /** A label value as the text format quotes it: backslash, double quote and line feed escaped. */
    static String labelValue(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    /** HELP text escapes backslash and line feed (a double quote stands as it is). */
    private static String help(String help) {
        return help.replace("\\", "\\\\").replace("\n", "\\n");
    }

    /** Thousandths as an exact decimal: 1500 is 1.5, -120 is -0.12. */
    private static String thousandths(long value) {
        return BigDecimal.valueOf(value).movePointLeft(3).stripTrailingZeros().toPlainString();
    }

    private static String epochSeconds(Instant t) {
        return thousandths(t.toEpochMilli());
    }
}
