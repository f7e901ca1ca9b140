package dev.knotless.plan.knotless;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.knotless.plan.Step;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.WorkflowSet;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Workflow files are hostile input (the daemon reads pull requests'): YAML that multiplies through
 * aliases or merge keys fails its own file with a line, in bounded time and memory, and never the
 * commit's other workflows.
 */
class WorkflowBombTest {

    private static final String FILE = ".knotless/workflows/bomb.yaml";
    private static final String STEPS = "steps:\n  - name: a\n    run: x\n";

    /** Each map merges the one before and adds a key: the last holds them all, n²/2 entries in all. */
    static String mergeChain(int maps) {
        StringBuilder b = new StringBuilder("variables:\n  K0: &m0 {k0: v}\n");
        for (int i = 1; i < maps; i++) {
            b.append("  K").append(i).append(": &m").append(i).append(" {<<: *m").append(i - 1).append(", k").append(i).append(": v}\n");
        }
        return b + STEPS;
    }

    /** Ten aliases of the level below on each of 12 levels: 10^12 nodes if written out. */
    static String aliasLadder() {
        StringBuilder b = new StringBuilder("x:\n  l0: &l0 [a]\n");
        for (int i = 1; i < 12; i++) {
            b.append("  l").append(i).append(": &l").append(i).append(" [");
            for (int j = 0; j < 10; j++) {
                b.append(j == 0 ? "" : ", ").append("*l").append(i - 1);
            }
            b.append("]\n");
        }
        return b + STEPS;
    }

    @Test
    void aMergeKeyChainFailsAtTheLineWhereItPassesTheCap() {
        // About 600 KiB and two hundred million merged entries: built out, it would take minutes and
        // more memory than the test has, so the 30 s ceiling tells a stop at the cap from building it.
        String yaml = mergeChain(20_000);
        WorkflowException e = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> catchThrowableOfType(WorkflowException.class, () -> new KnotlessDialect().parse(FILE, yaml)),
                "parsing a merge chain of 20,000 maps");
        assertThat(e).isNotNull();
        assertThat(e.file()).isEqualTo(FILE);
        assertThat(e.line()).as(e.getMessage()).isBetween(400, 500); // sum of 1..i passes 100,000 near i = 447
        assertThat(e.problem()).startsWith("the file builds more than 100000 YAML nodes");
    }

    @Test
    void anAliasLadderFailsOnItsLineWithoutBuildingIt() {
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> new KnotlessDialect().parse(FILE, aliasLadder()));
        assertThat(e).isNotNull();
        assertThat(e.line()).as(e.getMessage()).isEqualTo(7); // l5: 10^5 nodes
        assertThat(e.problem()).startsWith("the file builds more than 100000 YAML nodes");
    }

    @Test
    void aliasesOfAScalarCountAsTheCopiesTheyMake() {
        String yaml = "x: [&s a" + ", *s".repeat(100_001) + "]\n" + STEPS;
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> new KnotlessDialect().parse(FILE, yaml));
        assertThat(e).isNotNull();
        assertThat(e.problem()).startsWith("the file builds more than 100000 YAML nodes");
    }

    @Test
    void aBombFailsOnlyItsOwnFileAndTheCommitsOtherWorkflowsRun() {
        Map<String, String> files = new TreeMap<>();
        files.put(FILE, aliasLadder());
        files.put(".knotless/workflows/ok.yaml", "name: ok\n" + STEPS);
        WorkflowSet set = new KnotlessDialect().parseAll(files);
        assertThat(set.workflows()).extracting(Workflow::name).containsExactly("ok");
        assertThat(set.errors()).singleElement().satisfies(e -> assertThat(e.file()).isEqualTo(FILE));
    }

    @Test
    void theCommitsFilesTogetherHaveABudgetToo() {
        Map<String, String> files = new TreeMap<>();
        for (int i = 0; i < 5; i++) {
            files.put(".knotless/workflows/w" + i + ".yaml", "name: w" + i + "\n" + STEPS); // 6 nodes each
        }
        WorkflowSet set = new KnotlessDialect().parseAll(files, 20);
        assertThat(set.workflows()).extracting(Workflow::name).containsExactly("w0", "w1", "w2");
        assertThat(set.errors()).hasSize(2)
                .allSatisfy(e -> assertThat(e.problem()).startsWith("the commit's workflow files build more than 20 YAML nodes in all"));
    }

    @Test
    void ordinaryAnchorsAndMergesStillWork() throws Exception {
        Workflow w = new KnotlessDialect().parse(FILE, """
                variables: &vars {A: "1", B: "2"}
                steps:
                  - &build {name: build, run: make}
                  - {<<: *build, name: again}
                """);
        assertThat(w.steps()).extracting(Step::name).containsExactly("build", "again");
        assertThat(w.variables()).containsEntry("A", "1");
    }
}
