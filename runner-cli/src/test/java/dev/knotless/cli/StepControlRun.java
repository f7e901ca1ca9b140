package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.testkit.TestRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One run that uses every step control (docs/reference/workflow.md): a step that may continue on
 * error, a step retried on exit code 1 that passes at its second attempt, a step's own variables
 * and working directory, a failing step, a step skipped after it and one that runs on {@code
 * failure()}; and a JUnit report with a failed and a skipped test, read after the failure. Conditions,
 * retries and reports live above the seam, so every executor must give the same check; each
 * executor's exec IT runs it.
 */
final class StepControlRun {

    private StepControlRun() {}

    static TestRepo repo(Path dir, String image) throws Exception {
        TestRepo repo = new TestRepo(dir).workflow("ci.yaml", """
                image: %s
                variables: {LEVEL: info}
                reports: {junit: ["**/TEST-*.xml"]}
                steps:
                  - name: prepare
                    run: |
                      mkdir -p sub/dir build/reports && echo here > sub/dir/marker
                      printf '%%s\\n' '<testsuite name="cart"><testcase classname="com.acme.CartTest" name="adds" time="0.5"/>' \\
                        '<testcase classname="com.acme.CartTest" name="totals"><failure message="expected 3 but was 4"/></testcase>' \\
                        '<testcase classname="com.acme.CartTest" name="later"><skipped/></testcase></testsuite>' \\
                        > build/reports/TEST-cart.xml
                  - name: lint
                    run: exit 4
                    continue-on-error: true
                  - name: flaky
                    run: |
                      if [ -e /work/.flaky-once ]; then echo "second attempt"; exit 0; fi
                      touch /work/.flaky-once
                      echo "first attempt"
                      exit 1
                    retry: {max: 2, exit-codes: [1]}
                  - name: where
                    working-directory: sub/dir
                    env: {LEVEL: debug, ONLY: here}
                    run: echo "pwd=$(pwd) marker=$(cat marker) level=$LEVEL only=$ONLY"
                  - name: after
                    run: echo "level=$LEVEL only=${ONLY:-unset}"
                  - name: fails
                    run: exit 3
                  - name: skipped
                    run: echo never printed
                  - name: cleanup
                    if: failure()
                    run: echo "cleanup ran"
                """.formatted(image));
        repo.commit();
        return repo;
    }

    /** Asserts the check and log of {@code r}, the exec of {@link #repo}. */
    static void controlledItsSteps(CliRun r) throws Exception {
        assertThat(r.exit()).as(r.err()).isEqualTo(1);
        JsonNode check = r.checks().get(0);
        assertThat(check.get("status").asText()).as(r.err()).isEqualTo("failure");
        assertThat(check.get("reason").asText()).isEqualTo("step 'fails' exited with 3; first failed test: com.acme.CartTest.totals");
        JsonNode tests = check.get("tests");
        assertThat(tests).as(r.err()).isNotNull();
        assertThat(tests.get("files").asInt()).isEqualTo(1);
        assertThat(tests.get("tests").asInt()).isEqualTo(3);
        assertThat(tests.get("failures").asInt()).isEqualTo(1);
        assertThat(tests.get("skipped").asInt()).isEqualTo(1);
        assertThat(tests.get("failed").get(0).get("message").asText()).isEqualTo("expected 3 but was 4");
        assertThat(r.err()).contains("tests 3 tests: 1 passed, 1 failed, 1 skipped");
        List<String> steps = new ArrayList<>();
        for (JsonNode step : check.get("steps")) {
            steps.add(step.get("name").asText() + ":" + step.get("status").asText()
                    + (step.path("continuedOnError").asBoolean() ? "(continued)" : "")
                    + (step.has("attempts") ? "(after " + step.get("attempts").size() + ")" : ""));
        }
        assertThat(steps).as(r.err()).containsExactly("prepare:success", "lint:failure(continued)", "flaky:success(after 1)",
                "where:success", "after:success", "fails:failure", "skipped:skipped", "cleanup:success");
        JsonNode flaky = check.get("steps").get(2);
        assertThat(flaky.get("attempts").get(0).get("exitCode").asInt()).isEqualTo(1);
        assertThat(check.get("steps").get(1).get("exitCode").asInt()).isEqualTo(4);
        String log = Files.readString(Path.of(check.get("log").asText()));
        assertThat(log).contains("first attempt", "second attempt", "attempt 1 of 3 exited with 1: trying again",
                "pwd=/work/sub/dir marker=here level=debug only=here", "level=info only=unset", "cleanup ran",
                "'lint' exited with 4; continuing (continue-on-error)").doesNotContain("never printed");
    }
}
