package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.testkit.TestRepo;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * A run whose workflow {@code timeout} (20 s: a node's first start, which waits for the node to
 * dial and pulls the image, takes 6 s on a quiet machine and went past 10 s beside a kill matrix
 * in the suite's other fork) is longer than the runner's default ({@link
 * #RUNNER_DEFAULT}, given as {@code --default-timeout}) and shorter than its first step, the same
 * on every executor: the check is a {@code failure} with one reason naming the workflow's
 * deadline, reached at that deadline, and the step after is skipped.
 */
final class DeadlineRun {

    static final Duration WORKFLOW_TIMEOUT = Duration.ofSeconds(20);
    static final String RUNNER_DEFAULT = "2s";

    private DeadlineRun() {}

    static TestRepo repo(Path dir, String image) throws Exception {
        TestRepo repo = new TestRepo(dir).workflow("ci.yaml", """
                image: %s
                timeout: 20s
                steps:
                  - name: outlives
                    run: |
                      echo started
                      sleep 600
                  - name: after
                    run: 'true'
                """.formatted(image));
        repo.commit();
        return repo;
    }

    /**
     * The ceiling on the step and on the check: it only tells a run stopped at its deadline from one
     * whose step ran out its 10-minute sleep, so it stays below that and well above what any executor
     * takes under load (the measured times are printed; bench/ holds the figures).
     */
    static final Duration NEVER_STOPPED = Duration.ofMinutes(9);

    /**
     * Asserts the check of {@code r}, which took {@code took} from the exec's start: one reason naming
     * the workflow's deadline, the step after skipped, and the check ended no earlier than the
     * workflow's deadline (not the runner's default of 2 s) and before {@link #NEVER_STOPPED}. Prints
     * the measured times.
     */
    static void endedAtTheWorkflowsDeadline(String executor, CliRun r, Duration took) {
        assertThat(r.exit()).as(r.err()).isEqualTo(1);
        assertThat(r.checks()).as(r.err()).hasSize(1);
        JsonNode check = r.checks().get(0);
        assertThat(check.get("steps")).as("the run reached its steps: " + check + "\n" + r.err()).isNotEmpty();
        Duration checked = Duration.between(Instant.parse(check.get("startedAt").asText()),
                Instant.parse(check.get("finishedAt").asText()));
        Duration step = Duration.ofMillis(check.get("steps").get(0).get("durationMs").asLong());
        System.out.printf("%s: a run with a 20 s timeout: its step was stopped after %d ms, its check ended %d ms past"
                + " the deadline (%d ms after its exec started)%n", executor, step.toMillis(),
                checked.minus(WORKFLOW_TIMEOUT).toMillis(), took.toMillis());
        assertThat(check.get("status").asText()).isEqualTo("failure");
        assertThat(check.get("reason").asText()).as(r.err()).isEqualTo("step 'outlives' the run timed out after 20s");
        assertThat(check.get("steps").get(0).get("exitCode").isNull()).isTrue();
        assertThat(check.get("steps").get(1).get("status").asText()).isEqualTo("skipped");
        assertThat(step).as("the step was stopped, not run out; " + r.err()).isLessThan(NEVER_STOPPED);
        assertThat(checked).as(r.err()).isGreaterThanOrEqualTo(WORKFLOW_TIMEOUT).isLessThan(NEVER_STOPPED);
    }
}
