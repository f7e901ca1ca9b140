package dev.knotless.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.runner.state.StateStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-node gauges of {@code /metrics}: from the fleet's view at each scrape, escaped, unknowns left out. */
class NodeMetricsTest {

    static final Instant SEEN = Instant.parse("2026-03-01T10:00:00.250Z");

    @TempDir Path dir;

    static NodeFleet.Node reporting(String id) {
        return new NodeFleet.Node(id, "ed25519-0011223344556677", true, true, false, SEEN, 2,
                new NodeFleet.Capacity(4000, 8L << 30, 20L << 30), new NodeFleet.Allocated(1500, 3L << 30),
                new NodeFleet.Health("1.1.12", List.of("bridge"), -120));
    }

    @Test
    void eachNodeHasItsGaugesWithHelpAndType() {
        String text = NodeMetrics.text(new NodeFleet.View(List.of(reporting("node-a"),
                new NodeFleet.Node("node-b", null, true, false, true, null, 0)), true, Optional.of(SEEN)));

        assertThat(text).isEqualTo("""
                # HELP knotless_node_connected Whether the node is connected to this runner (1) or not (0)
                # TYPE knotless_node_connected gauge
                knotless_node_connected{node="node-a"} 1
                knotless_node_connected{node="node-b"} 0
                # HELP knotless_node_drained Whether the node is drained: no new run is placed on it
                # TYPE knotless_node_drained gauge
                knotless_node_drained{node="node-a"} 0
                knotless_node_drained{node="node-b"} 1
                # HELP knotless_node_allocations Allocations this runner holds on the node
                # TYPE knotless_node_allocations gauge
                knotless_node_allocations{node="node-a"} 2
                knotless_node_allocations{node="node-b"} 0
                # HELP knotless_node_allocated_cpu CPU this runner's runs on the node asked for, in cores
                # TYPE knotless_node_allocated_cpu gauge
                knotless_node_allocated_cpu{node="node-a"} 1.5
                # HELP knotless_node_allocated_memory_bytes Memory this runner's runs on the node asked for
                # TYPE knotless_node_allocated_memory_bytes gauge
                knotless_node_allocated_memory_bytes{node="node-a"} 3221225472
                # HELP knotless_node_capacity_cpu CPU the node offers runs, in cores, as it last reported
                # TYPE knotless_node_capacity_cpu gauge
                knotless_node_capacity_cpu{node="node-a"} 4
                # HELP knotless_node_capacity_memory_bytes Memory the node offers runs, as it last reported
                # TYPE knotless_node_capacity_memory_bytes gauge
                knotless_node_capacity_memory_bytes{node="node-a"} 8589934592
                # HELP knotless_node_clock_skew_seconds The node's clock minus the runner's when it last reported
                # TYPE knotless_node_clock_skew_seconds gauge
                knotless_node_clock_skew_seconds{node="node-a"} -0.12
                # HELP knotless_node_last_seen_timestamp_seconds When the runner last saw the node (connect or disconnect; now while connected), Unix time
                # TYPE knotless_node_last_seen_timestamp_seconds gauge
                knotless_node_last_seen_timestamp_seconds{node="node-a"} 1772359200.25
                """);
    }

    @Test
    void whatNoDaemonReportedHasNoSampleAndAnEmptyFleetNoFamily() {
        // connected, allocations and allocated are null when the snapshot is stale: no sample, not a zero
        String text = NodeMetrics.text(new NodeFleet.View(List.of(new NodeFleet.Node("node-a", null, true, null, false, SEEN, null)),
                false, Optional.empty()));

        assertThat(text).doesNotContain("knotless_node_connected").doesNotContain("knotless_node_allocations")
                .doesNotContain("knotless_node_allocated_").doesNotContain("knotless_node_capacity_")
                .doesNotContain("knotless_node_clock_skew_seconds")
                .contains("knotless_node_drained{node=\"node-a\"} 0\n")
                .contains("knotless_node_last_seen_timestamp_seconds{node=\"node-a\"} 1772359200.25\n");
        assertThat(NodeMetrics.text(new NodeFleet.View(List.of(), true, Optional.empty()))).isEmpty();
    }

    @Test
    void labelValuesAreEscapedAsTheTextFormatSays() {
        assertThat(NodeMetrics.labelValue("a\\b\"c\nd")).isEqualTo("a\\\\b\\\"c\\nd");
        assertThat(NodeMetrics.text(new NodeFleet.View(List.of(new NodeFleet.Node("x\"} 1\nevil", null, null, null, true, null, null)),
                true, Optional.empty()))).contains("knotless_node_drained{node=\"x\\\"} 1\\nevil\"} 1\n");
    }

    @Test
    void theScrapeCarriesTheFleetAsItIsAtEachScrape() throws Exception {
        AtomicReference<List<NodeFleet.Node>> now = new AtomicReference<>(List.of(reporting("node-a")));
        AtomicReference<IOException> failure = new AtomicReference<>();
        NodeFleet fleet = new NodeFleet() {
            @Override
            public View view() throws IOException {
                if (failure.get() != null) {
                    throw failure.get();
                }
                return new View(now.get(), true, Optional.of(SEEN));
            }

            @Override
            public Change setDrained(String node, boolean drained) {
                throw new UnsupportedOperationException();
            }
        };
        try (StateStore state = StateStore.open(dir)) {
            DaemonMetrics metrics = new DaemonMetrics(state, fleet).zeroes();

            assertThat(metrics.scrape()).contains("knotless_queue_depth").contains("knotless_node_connected{node=\"node-a\"} 1\n");
            now.set(List.of(reporting("node-b")));
            assertThat(metrics.scrape()).as("a node the fleet no longer names has no series")
                    .doesNotContain("node=\"node-a\"").contains("knotless_node_connected{node=\"node-b\"} 1\n");
            failure.set(new IOException("unreadable"));
            assertThat(metrics.scrape()).as("the rest of the scrape stands when the fleet cannot be read")
                    .contains("knotless_queue_depth").doesNotContain("knotless_node_");
            assertThat(new DaemonMetrics(state).scrape()).doesNotContain("knotless_node_");
        }
    }
}
