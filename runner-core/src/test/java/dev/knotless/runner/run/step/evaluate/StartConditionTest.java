package dev.knotless.runner.run.step.evaluate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.github.GithubDialect;
import dev.knotless.runner.run.request.NeededRun;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A GitHub job's {@code if}, read by the real front-end and decided as a run would before it starts. */
class StartConditionTest {

    static final String SHA = "0123456789abcdef0123456789abcdef01234567";

    private static Map<String, Workflow> jobs() throws Exception {
        List<Workflow> runs = new GithubDialect().parseExpanded(".github/workflows/d.yml", """
                name: D
                on: [push, pull_request]
                jobs:
                  build:
                    runs-on: linux
                    outputs: {ok: "${{ steps.v.outputs.ok }}"}
                    steps: [{id: v, run: echo ok=yes >> "$GITHUB_OUTPUT"}]
                  deploy:
                    needs: build
                    if: github.ref == 'refs/heads/main' && github.event_name == 'push' && needs.build.outputs.ok == 'yes'
                    runs-on: linux
                    steps: [{run: 'true'}]
                  report:
                    needs: [build, deploy]
                    if: always()
                    runs-on: linux
                    steps: [{run: 'true'}]
                  rescue:
                    needs: build
                    if: failure() && needs.build.result == 'failure'
                    runs-on: linux
                    steps: [{run: 'true'}]
                  never:
                    if: false
                    runs-on: linux
                    steps: [{run: 'true'}]
                  broken:
                    if: fromJSON(github.ref_name) == 1
                    runs-on: linux
                    steps: [{run: 'true'}]
                """);
        Map<String, Workflow> byName = new java.util.HashMap<>();
        runs.forEach(w -> byName.put(w.group(), w));
        return byName;
    }

    private static Optional<StartCondition.NotStarting> decide(Workflow w, String ref, Event event, NeededRun... needed) {
        return StartCondition.decide(w.condition(), RunFacts.of("alice/app", "refs/heads/main", SHA, ref, event, "run-1", List.of(needed)), Map.of());
    }

    private static NeededRun run(String group, CheckStatus status, Map<String, String> outputs) {
        return new NeededRun("D / " + group, "D / " + group, status, outputs);
    }

    @Test
    void aConditionOnTheRunsFactsAndWhatItsNeedsHandedOnDecidesBeforeTheRunStarts() throws Exception {
        Workflow deploy = jobs().get("D / deploy");
        NeededRun built = run("build", CheckStatus.SUCCESS, Map.of("ok", "yes"));
        assertThat(decide(deploy, "refs/heads/main", Event.PUSH, built)).isEmpty();
        assertThat(decide(deploy, "refs/heads/topic", Event.PUSH, built)).contains(new StartCondition.NotStarting(
                CheckStatus.SKIPPED, "its condition 'github.ref == 'refs/heads/main' && github.event_name == 'push'"
                        + " && needs.build.outputs.ok == 'yes'' is false"));
        assertThat(decide(deploy, "refs/heads/main", Event.PULL, built)).map(StartCondition.NotStarting::ending)
                .contains(CheckStatus.SKIPPED);
        assertThat(decide(deploy, "refs/heads/main", Event.PUSH, run("build", CheckStatus.SUCCESS, Map.of("ok", "no"))))
                .isPresent();
    }

    @Test
    void statusFunctionsAnswerForTheRunsItNeeds() throws Exception {
        Map<String, Workflow> jobs = jobs();
        NeededRun failed = run("build", CheckStatus.FAILURE, Map.of());
        NeededRun passed = run("build", CheckStatus.SUCCESS, Map.of());
        NeededRun skipped = run("deploy", CheckStatus.SKIPPED, Map.of());
        assertThat(jobs.get("D / report").condition().needsPassed()).isFalse();
        assertThat(decide(jobs.get("D / report"), "refs/heads/main", Event.PUSH, failed, skipped)).isEmpty();
        assertThat(decide(jobs.get("D / rescue"), "refs/heads/main", Event.PUSH, failed)).isEmpty();
        assertThat(decide(jobs.get("D / rescue"), "refs/heads/main", Event.PUSH, passed)).contains(new StartCondition.NotStarting(
                CheckStatus.SKIPPED, "its condition 'failure() && needs.build.result == 'failure'' is false"));
        assertThat(decide(jobs.get("D / rescue"), "refs/heads/main", Event.PUSH, run("build", CheckStatus.CANCELLED, Map.of())))
                .as("a cancelled need is not a failure").isPresent();
    }

    @Test
    void aConditionTheFileDecidesFalseSkipsAndOneThatCannotBeEvaluatedFails() throws Exception {
        Map<String, Workflow> jobs = jobs();
        assertThat(decide(jobs.get("D / never"), "refs/heads/main", Event.PUSH)).contains(new StartCondition.NotStarting(
                CheckStatus.SKIPPED, "its condition is false, as its file decides"));
        Optional<StartCondition.NotStarting> broken = decide(jobs.get("D / broken"), "refs/heads/main", Event.PUSH);
        assertThat(broken).map(StartCondition.NotStarting::ending).contains(CheckStatus.FAILURE);
        assertThat(broken.orElseThrow().reason()).startsWith("its condition 'fromJSON(github.ref_name) == 1' could not be evaluated: ");
        assertThat(decide(jobs.get("D / build"), "refs/heads/main", Event.PUSH)).as("no condition").isEmpty();
    }

    @Test
    void aRunNameIsWorkedOutOverTheRunsFactsInputsAndVariablesBeforeItStarts() throws Exception {
        Workflow w = new GithubDialect().parse(".github/workflows/r.yml", """
                name: Deploy
                run-name: Deploy ${{ inputs.target }} from ${{ github.ref_name }} in ${{ vars.REGION || 'nowhere' }}
                on: {workflow_dispatch: {inputs: {target: {type: string}}}}
                jobs: {j: {runs-on: x, steps: [{run: 'true'}]}}
                """);
        String input = w.on().inputs().get("target").variable();
        RunFacts facts = RunFacts.of("alice/app", "refs/heads/main", SHA, "refs/heads/release", Event.MANUAL, "run-1",
                List.of());
        assertThat(StartCondition.runName(w.runName(), facts.withConfiguration(Map.of("REGION", "eu")),
                Map.of(input, "production"))).isEqualTo("Deploy production from release in eu");
        assertThat(StartCondition.runName(w.runName(), facts, Map.of())).isEqualTo("Deploy  from release in nowhere");
        assertThat(StartCondition.runName(null, facts, Map.of())).isNull();
    }
}
