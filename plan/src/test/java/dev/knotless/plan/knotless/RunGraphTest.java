package dev.knotless.plan.knotless;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.WorkflowSet;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Services, matrices, needs and artifacts as the parser reads and checks them over a commit's files. */
class RunGraphTest {

    static WorkflowSet parse(Map<String, String> files) {
        Map<String, String> paths = new LinkedHashMap<>();
        files.forEach((f, y) -> paths.put(".knotless/workflows/" + f, y));
        return new KnotlessDialect().parseAll(paths);
    }

    static final String STEPS = "steps: [{run: 'true'}]\n";

    @Test
    void aMatrixMakesOneWorkflowPerCombinationNamedByItsValues() {
        WorkflowSet set = parse(Map.of("build.yaml", """
                matrix:
                  jdk: ["17", "21"]
                  db: [postgres, mariadb]
                  exclude: [{jdk: "17", db: mariadb}]
                  max-parallel: 2
                  fail-fast: false
                image: "eclipse-temurin:${matrix.jdk}"
                variables: {DB: "${matrix.db}-server"}
                services:
                  db: {image: "${matrix.db}:latest", ports: [5432], wait: 30s}
                """ + STEPS));
        assertThat(set.errors()).isEmpty();
        assertThat(set.workflows()).extracting(Workflow::name).containsExactly(
                "build (jdk=17, db=postgres)", "build (jdk=21, db=postgres)", "build (jdk=21, db=mariadb)");
        Workflow last = set.workflows().getLast();
        assertThat(last.group()).isEqualTo("build");
        assertThat(last.image()).isEqualTo("eclipse-temurin:21");
        assertThat(last.variables()).containsEntry("DB", "mariadb-server").containsEntry("KNOTLESS_MATRIX_JDK", "21")
                .containsEntry("KNOTLESS_MATRIX_DB", "mariadb");
        assertThat(last.services()).singleElement().satisfies(s -> {
            assertThat(s.name()).isEqualTo("db");
            assertThat(s.image()).isEqualTo("mariadb:latest");
            assertThat(s.ports()).containsExactly(5432);
            assertThat(s.readyWithin()).isEqualTo(Duration.ofSeconds(30));
        });
        assertThat(last.cell().maxParallel()).isEqualTo(2);
        assertThat(last.cell().failFast()).isFalse();
    }

    @Test
    void aNameThatSaysTheCombinationIsKept() {
        WorkflowSet set = parse(Map.of("build.yaml", "name: build-${matrix.jdk}\nmatrix: {jdk: [\"17\", \"21\"]}\n" + STEPS));
        assertThat(set.workflows()).extracting(Workflow::name).containsExactly("build-17", "build-21");
        assertThat(set.workflows()).extracting(Workflow::group).containsOnly("build-${matrix.jdk}");
    }

    @Test
    void needsAreOrderedAndResolvedToTheirCombinations() {
        WorkflowSet set = parse(Map.of(
                "a-deploy.yaml", "needs: [build, lint]\n" + STEPS,
                "build.yaml", "matrix: {jdk: [\"17\", \"21\"]}\nartifacts: [dist/, \"reports/*.xml\"]\n" + STEPS,
                "lint.yaml", STEPS));
        assertThat(set.errors()).isEmpty();
        Workflow deploy = set.workflows().stream().filter(w -> w.name().equals("a-deploy")).findFirst().orElseThrow();
        assertThat(set.runsNeededBy(deploy)).containsExactly("build (jdk=17)", "build (jdk=21)", "lint");
        assertThat(set.inOrder(set.workflows())).extracting(Workflow::name)
                .containsExactly("build (jdk=17)", "build (jdk=21)", "lint", "a-deploy");
        assertThat(set.withNeeds(List.of(deploy))).extracting(Workflow::name)
                .containsExactly("build (jdk=17)", "build (jdk=21)", "lint", "a-deploy");
        assertThat(set.workflows()).filteredOn(w -> w.group().equals("build")).allSatisfy(w ->
                assertThat(w.artifacts()).containsExactly("dist/", "reports/*.xml"));
    }

    @Test
    void aNeedOnABrokenFileWaitsForItsErrorCheck() {
        WorkflowSet set = parse(Map.of("deploy.yaml", "needs: [build]\n" + STEPS, "build.yaml", "steps: nope\n"));
        assertThat(set.errors()).extracting(WorkflowException::file).containsExactly(".knotless/workflows/build.yaml");
        assertThat(set.runsNeededBy(set.workflows().getFirst())).containsExactly(".knotless/workflows/build.yaml");
    }

    @Test
    void unknownNeedsCyclesAndOversizedMatricesNameFileLineAndField() {
        WorkflowSet set = parse(Map.of(
                "a.yaml", "needs: [b]\n" + STEPS,
                "b.yaml", "needs: [c]\n" + STEPS,
                "c.yaml", "needs: [a]\n" + STEPS,
                "d.yaml", "needs: [nope]\n" + STEPS,
                "e.yaml", "needs: [e]\n" + STEPS,
                "f.yaml", "matrix: {a: [1,2,3,4,5,6,7], b: [1,2,3,4,5,6,7], c: [1,2,3,4,5,6]}\n" + STEPS,
                "g.yaml", STEPS));
        assertThat(set.workflows()).extracting(Workflow::name).containsExactly("g");
        assertThat(set.errors()).extracting(Throwable::getMessage).containsExactly(
                ".knotless/workflows/a.yaml:1:9: field 'needs[0]': the needs make a cycle: a → b → c → a",
                ".knotless/workflows/b.yaml:1:9: field 'needs[0]': the needs make a cycle: a → b → c → a",
                ".knotless/workflows/c.yaml:1:9: field 'needs[0]': the needs make a cycle: a → b → c → a",
                ".knotless/workflows/d.yaml:1:9: field 'needs[0]': no workflow named 'nope' in this commit (there are a, b, c, d, e, g)",
                ".knotless/workflows/e.yaml:1:9: field 'needs[0]': a workflow cannot need itself",
                ".knotless/workflows/f.yaml:1:9: field 'matrix': makes 294 combinations; at most 256");
    }

    @Test
    void badServicesAndMatricesAreOneLineEach() {
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("services: {DB: {image: x}}\n", "field 'services.DB': 'DB' is not a host name");
        cases.put("services: {db: {ports: [5432]}}\n", "field 'services.db.image': required");
        cases.put("services: {db: {image: x, ports: [70000]}}\n", "field 'services.db.ports[0]': expected a TCP port");
        cases.put("services: {a: {image: x, ports: [80]}, b: {image: y, ports: [80]}}\n",
                "field 'services.b.ports[0]': port 80 is also service 'a''s");
        cases.put("services: {db: {image: x, healthcheck: y}}\n", "field 'services.db.healthcheck': unknown field");
        cases.put("matrix: {jdk: []}\n", "field 'matrix.jdk': is empty");
        cases.put("matrix: {jdk: [\"17\"], exclude: [{os: linux}]}\n", "field 'matrix.exclude[0].os': 'os' is not a key");
        cases.put("matrix: {jdk: [\"17\"], exclude: [{jdk: \"17\"}]}\n", "field 'matrix': 'exclude' leaves out every combination");
        cases.put("matrix: {jdk: [\"17\"], max-parallel: 0}\n", "field 'matrix.max-parallel': expected a whole number");
        cases.put("image: \"x:${matrix.jdk}\"\n", "field 'image': uses ${matrix.jdk} but the workflow has no matrix");
        cases.put("matrix: {jdk: [\"17\"]}\nimage: \"x:${matrix.os}\"\n", "field 'image': uses ${matrix.os}, which is not a key");
        cases.put("artifacts: [../etc]\n", "field 'artifacts[0]': '../etc' must be a path or pattern relative to /work");
        cases.put("needs: build\n", "field 'needs': expected a list of strings");
        cases.forEach((yaml, message) -> assertThat(parse(Map.of("w.yaml", yaml + STEPS)).errors())
                .as(yaml).singleElement().satisfies(e -> assertThat(e.getMessage()).contains(message)));
    }
}
