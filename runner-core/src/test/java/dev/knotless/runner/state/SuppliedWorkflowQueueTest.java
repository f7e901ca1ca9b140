package dev.knotless.runner.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import dev.knotless.plan.dialects.Dialects;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A workflow a forge sent with its event stays with the queued run, across a restart and a rerun. */
class SuppliedWorkflowQueueTest {

    @TempDir Path dir;

    @Test
    void theSuppliedTextIsKeptWithTheRunAndItsReruns() throws Exception {
        SuppliedWorkflow sent = new SuppliedWorkflow("build.yml", Dialects.named("tangled"), "engine: knotless\nsteps: [{run: 'true'}]\n");
        QueuedRun run = new QueuedRun("run-1", "did-plc-x/app", "a".repeat(40), "refs/heads/main", "build.yml", Event.PUSH,
                Trust.TRUSTED, "r1", Map.of(), null, sent);
        try (StateStore store = StateStore.open(dir)) {
            store.runs().enqueue(run);
            assertThat(store.runs().rerun("run-1", Map.of("X", "1")).supplied()).isEqualTo(sent);
        }
        try (StateStore store = StateStore.open(dir)) {
            assertThat(store.runs().run("run-1").orElseThrow().supplied()).isEqualTo(sent);
            assertThat(store.runs().run("run-1").orElseThrow().queued()).isEqualTo(run);
        }
    }

    @Test
    void aRunReadFromTheCommitHasNone() throws Exception {
        try (StateStore store = StateStore.open(dir)) {
            store.runs().enqueue(new QueuedRun("run-2", "acme/app", "a".repeat(40), "refs/heads/main", "ci", Event.PUSH,
                    Trust.TRUSTED, "r1"));
            assertThat(store.runs().run("run-2").orElseThrow().supplied()).isNull();
        }
    }
}
