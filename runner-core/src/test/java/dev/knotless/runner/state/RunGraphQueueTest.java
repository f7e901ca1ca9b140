package dev.knotless.runner.state;

import static dev.knotless.runner.state.StateStoreTest.check;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The queue's side of the run graph: needs wait, max-parallel limits, and runs whose needs failed are blocked. */
class RunGraphQueueTest {

    static final String SHA = "b".repeat(40);

    @TempDir Path dir;
    StateStore store;

    @BeforeEach
    void open() throws Exception {
        store = StateStore.open(dir);
    }

    @AfterEach
    void close() throws Exception {
        store.close();
    }

    static QueuedRun run(String workflow, RunLinks links) {
        return new QueuedRun("run-" + workflow.replaceAll("[^a-z0-9]", ""), "acme/app", SHA, "refs/heads/main", workflow,
                Event.PUSH, Trust.TRUSTED, "r1", Map.of(), links);
    }

    String take() throws Exception {
        return store.runs().takeNext(10).map(RunRecord::workflow).orElse(null);
    }

    @Test
    void aRunWaitsForWhatItNeedsAndAGroupRunsAtMostMaxParallelAtOnce() throws Exception {
        RunLinks build = new RunLinks(List.of(), "build", 1, true);
        store.runs().enqueue(List.of(run("deploy", new RunLinks(List.of("build (jdk=17)", "build (jdk=21)"), "deploy", 0, false)),
                run("build (jdk=17)", build), run("build (jdk=21)", build), run("lint", null)));
        assertThat(take()).isEqualTo("build (jdk=17)");
        assertThat(take()).as("max-parallel 1: the other combination waits").isEqualTo("lint");
        assertThat(take()).as("deploy waits for both builds").isNull();
        store.runs().finish("run-buildjdk17", check("run-buildjdk17", CheckStatus.SUCCESS, null));
        assertThat(take()).isEqualTo("build (jdk=21)");
        assertThat(take()).isNull();
        store.runs().finish("run-buildjdk21", check("run-buildjdk21", CheckStatus.SUCCESS, null));
        assertThat(store.runs().blocked()).isEmpty();
        assertThat(take()).isEqualTo("deploy");
    }

    @Test
    void aRunWhoseNeedFailedOrNeverRanIsBlockedUntilARerunWaits() throws Exception {
        store.runs().enqueue(List.of(run("build", null),
                run("deploy", new RunLinks(List.of("build"), "deploy", 0, false)),
                run("docs", new RunLinks(List.of("site"), "docs", 0, false))));
        assertThat(store.runs().blocked()).extracting(RunRecord::workflow).as("site was never queued").containsExactly("docs");
        assertThat(take()).isEqualTo("build");
        store.runs().finish("run-build", check("run-build", CheckStatus.FAILURE, "step 'x' failed"));
        List<RunRecord> blocked = store.runs().blocked();
        assertThat(blocked).extracting(RunRecord::workflow).containsExactly("deploy", "docs");
        assertThat(store.runs().newest(blocked.getFirst(), "build")).map(RunRecord::status).contains(CheckStatus.FAILURE);
        assertThat(store.runs().newest(blocked.getFirst(), "site")).isEqualTo(Optional.empty());

        store.runs().rerun("run-build", Map.of());
        assertThat(store.runs().blocked()).extracting(RunRecord::workflow).as("a rerun of build waits: deploy may still run")
                .containsExactly("docs");
        assertThat(store.runs().groupGoing(store.runs().run("run-deploy").orElseThrow())).isEmpty();
    }

    @Test
    void groupGoingListsTheOtherCombinationsThatWaitOrRun() throws Exception {
        RunLinks build = new RunLinks(List.of(), "build", 0, true);
        store.runs().enqueue(List.of(run("build (a=1)", build), run("build (a=2)", build), run("build (a=3)", build)));
        take();
        RunRecord first = store.runs().run("run-builda1").orElseThrow();
        assertThat(store.runs().groupGoing(first)).extracting(RunRecord::workflow).containsExactly("build (a=2)", "build (a=3)");
        assertThat(first.links()).isEqualTo(build);
    }

    @Test
    void aRunTakenWhateverItsNeedsDidWaitsUntilTheyEndedAndIsNotBlockedByAFailure() throws Exception {
        store.runs().enqueue(List.of(run("build", null),
                run("report", new RunLinks(List.of("build"), "report", 0, false, true)),
                run("notify", new RunLinks(List.of("site"), "notify", 0, false, true))));
        assertThat(store.runs().blocked()).extracting(RunRecord::workflow).as("site was never queued, whatever notify takes")
                .containsExactly("notify");
        assertThat(take()).isEqualTo("build");
        assertThat(take()).as("report waits while build runs").isNull();
        store.runs().finish("run-build", check("run-build", CheckStatus.FAILURE, "step 'x' failed"));
        assertThat(store.runs().blocked()).extracting(RunRecord::workflow).containsExactly("notify");
        assertThat(store.runs().run("run-report").orElseThrow().links().whateverNeedsDid()).isTrue();
        store.runs().rerun("run-build", Map.of());
        assertThat(take()).isEqualTo("build");
        assertThat(take()).as("a rerun of build runs: report waits for it").isNull();
        store.runs().finish("run-build-r1", check("run-build-r1", CheckStatus.SUCCESS, null));
        assertThat(take()).isEqualTo("report");
    }

    @Test
    void aNeedThatFailedWhereItMayCountsAsPassed() throws Exception {
        store.runs().enqueue(List.of(run("experimental", null),
                run("deploy", new RunLinks(List.of("experimental"), "deploy", 0, false))));
        assertThat(take()).isEqualTo("experimental");
        store.runs().finish("run-experimental", check("run-experimental", CheckStatus.FAILURE, "step 'x' failed")
                .continuingOnError());
        assertThat(store.runs().blocked()).isEmpty();
        assertThat(take()).isEqualTo("deploy");
    }
}
