package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.testkit.TestRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One commit whose workflows make a run graph (docs/reference/workflow.md): a matrix of three
 * whose combinations save artifacts, a workflow that needs them and reads every combination's
 * artifact under /artifacts, and a failing workflow whose dependent is cancelled without starting.
 * The graph, matrices and artifacts live above the seam, so every executor must give the same
 * checks; each executor's exec IT runs it.
 */
final class RunGraphRun {

    private RunGraphRun() {}

    static TestRepo repo(Path dir, String image) throws Exception {
        TestRepo repo = new TestRepo(dir)
                .workflow("build.yaml", """
                        image: %s
                        matrix:
                          n: ["1", "2", "3"]
                          fail-fast: false
                        artifacts: [dist/]
                        steps:
                          - name: make
                            run: mkdir -p dist && echo "built-$KNOTLESS_MATRIX_N" > "dist/out-$KNOTLESS_MATRIX_N.txt"
                        """.formatted(image))
                .workflow("deploy.yaml", """
                        image: %s
                        needs: [build]
                        steps:
                          - name: gather
                            run: |
                              cat /artifacts/*/dist/out-*.txt | sort | tr '\\n' ' '; echo; ls /artifacts
                              ls -ld /artifacts/build-n=1/dist | cut -c1-10
                        """.formatted(image))
                .workflow("fails.yaml", "image: %s\nsteps: [{name: boom, run: exit 5}]\n".formatted(image))
                .workflow("after.yaml", "image: %s\nneeds: [fails]\nsteps: [{name: never, run: echo never printed}]\n"
                        .formatted(image));
        repo.commit();
        return repo;
    }

    /** Asserts the checks of {@code r}, the exec of {@link #repo}. */
    static void ranItsGraph(CliRun r) throws Exception {
        assertThat(r.exit()).as(r.err()).isEqualTo(1);
        Map<String, JsonNode> checks = new LinkedHashMap<>();
        for (JsonNode check : r.checks()) {
            checks.put(check.get("workflow").asText(), check);
        }
        assertThat(checks.keySet()).as(r.err()).containsExactly("build (n=1)", "build (n=2)", "build (n=3)", "fails", "after",
                "deploy");
        for (String n : new String[] {"1", "2", "3"}) {
            assertThat(checks.get("build (n=" + n + ")").get("status").asText()).as(r.err()).isEqualTo("success");
        }
        assertThat(checks.get("fails").get("status").asText()).isEqualTo("failure");
        JsonNode after = checks.get("after");
        assertThat(after.get("status").asText()).isEqualTo("cancelled");
        assertThat(after.get("reason").asText()).isEqualTo("needs fails, which failed");
        assertThat(after.get("steps")).isEmpty();
        JsonNode deploy = checks.get("deploy");
        assertThat(deploy.get("status").asText()).as(r.err()).isEqualTo("success");
        String log = Files.readString(Path.of(deploy.get("log").asText()));
        assertThat(log).contains("dr-xr-xr-x").contains("built-1 built-2 built-3", "build-n=1\nbuild-n=2\nbuild-n=3",
                "artifacts of build (n=2) in /artifacts/build-n=2");
        assertThat(Files.readString(Path.of(checks.get("build (n=1)").get("log").asText()))).contains("artifacts saved");
        JsonNode saved = checks.get("build (n=2)").get("artifacts");
        assertThat(saved.get("paths").get(0).asText()).isEqualTo("dist");
        assertThat(saved.get("bytes").asLong()).isPositive();
        assertThat(deploy.has("artifacts")).as("deploy names none").isFalse();
        assertThat(r.err()).contains("artifacts dist (").contains("run graph: build (n=1), build (n=2), build (n=3), fails,"
                + " after (after fails), deploy (after build)");
    }
}
