package dev.knotless.runner.run.step.evaluate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.knotless.checks.Event;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.plan.Step;
import dev.knotless.plan.StepFiles;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.github.GithubDialect;
import dev.knotless.runner.run.record.Masks;
import dev.knotless.runner.run.step.protocol.HandedBack;
import dev.knotless.runner.run.step.protocol.StepReport;
import dev.knotless.runner.run.step.protocol.Summaries;
import dev.knotless.secrets.Grants;
import dev.knotless.secrets.Masker;
import dev.knotless.secrets.Secret;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a step of a GitHub Actions workflow starts with, read by the real front-end and worked out
 * here as the run would: the facts, the steps before, the secrets it was granted, the status.
 */
class StepValuesTest {

    static final RunFacts FACTS = RunFacts.of("alice/app", "refs/heads/main", "0123456789abcdef0123456789abcdef01234567", "refs/heads/main",
            Event.PULL, "run-7", List.of());
    static final Grants.Granted DEPLOY = new Grants.Granted(List.of(new Secret("DEPLOY", "s3cr3t-value")), List.of());

    /** A workspace of two files, as an executor would list and hash them. */
    static final WorkspaceFiles WORKSPACE = new WorkspaceFiles() {
        final Map<String, String> files = Map.of("app/package-lock.json", "{\"lockfileVersion\": 3}\n", "README.md", "# app\n");

        @Override
        public List<String> list() {
            return List.copyOf(files.keySet());
        }

        @Override
        public Map<String, byte[]> hashes(List<String> names) {
            Map<String, byte[]> hashes = new java.util.HashMap<>();
            names.forEach(n -> hashes.put(n, sha256(files.get(n).getBytes(StandardCharsets.UTF_8))));
            return hashes;
        }

        @Override
        public String directory() {
            return "/github/workspace";
        }
    };

    static byte[] sha256(byte[] bytes) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    @TempDir Path dir;
    HandedBack handed;
    List<Step> steps;
    final List<StepResult> ended = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        Workflow w = new GithubDialect().parseExpanded(".github/workflows/v.yml", """
                name: V
                on: push
                env:
                  TOKEN: ${{ secrets.DEPLOY }}
                jobs:
                  j:
                    runs-on: linux
                    steps:
                      - id: a
                        run: echo "v=1" >> "$GITHUB_OUTPUT"
                      - id: flaky
                        continue-on-error: true
                        run: exit 1
                      - name: Deploy ${{ github.ref_name }} of ${{ steps.a.outputs.v }}
                        if: steps.a.outputs.v == '1' && steps.flaky.outcome == 'failure' && steps.flaky.conclusion == 'success'
                        env:
                          V: ${{ steps.a.outputs.v }}
                        run: echo ${{ env.V }} '${{ env.TOKEN }}' "${{ secrets.DEPLOY }}" ${{ github.event_name }}
                      - if: failure() || job.status == 'cancelled'
                        run: echo ${{ fromJSON(github.ref_name) }}
                      - if: hashFiles('**/nothing-here') == ''
                        env:
                          KEY: deps-${{ hashFiles('**/package-lock.json') }}
                          ALL: ${{ hashFiles('**', '!app/**') }}
                        run: 'true'
                """).getFirst();
        steps = w.steps();
        handed = new HandedBack(w.stepFiles(), new Masks(Masker.none()), new Summaries(dir.resolve("s.md")), "/github/workspace", null);
    }

    private StepValues at(int number, RunStatus status, Grants.Granted granted) {
        return new StepValues(FACTS, steps, ended.subList(0, number - 1), handed, granted, Map.of("CI", "true"), status,
                WORKSPACE);
    }

    private void ran(int number, StepStatus status, String outputs, boolean continued) {
        StepReport report = new StepReport();
        handed.takeFiles(number, Map.of(StepFiles.Purpose.OUTPUTS, outputs.getBytes(StandardCharsets.UTF_8)), report);
        StepResult result = new StepResult("s" + number, status, status == StepStatus.SUCCESS ? 0 : 1, 1, null);
        ended.add(continued ? result.asContinued() : result);
    }

    @Test
    void theVariablesAStepExpectsNameTheRunsFactsInGithubsWords() throws Exception {
        Map<String, String> computed = at(1, new RunStatus(false, false, false), Grants.Granted.NONE).computed(steps.get(0));
        assertThat(computed).containsEntry("GITHUB_SHA", "0123456789abcdef0123456789abcdef01234567")
                .containsEntry("GITHUB_REF", "refs/heads/main").containsEntry("GITHUB_REF_NAME", "main")
                .containsEntry("GITHUB_REF_TYPE", "branch").containsEntry("GITHUB_EVENT_NAME", "pull_request")
                .containsEntry("GITHUB_REPOSITORY", "alice/app").containsEntry("GITHUB_REPOSITORY_OWNER", "alice")
                .containsEntry("GITHUB_RUN_ID", "run-7").containsKey("RUNNER_ARCH")
                .as("a secret not granted reads as empty, as GitHub's").containsEntry("TOKEN", "");
    }

    @Test
    void aJavascriptActionsStagesShareTheirStateALaterStagesValueOverAnEarliers() throws Exception {
        List<Step> stages = List.of(stage("pre", "-pre-1", List.of()), stage("main", "m", List.of("-pre-1")),
                stage("post", null, List.of("-pre-1", "m")));
        // what the pre step and the main step saved, through GitHub's state file as a run hands it back
        handed.takeFiles(1, Map.of(StepFiles.Purpose.STATE, "FROM=pre\nSHARED=pre\n".getBytes(StandardCharsets.UTF_8)),
                new StepReport());
        handed.takeFiles(2, Map.of(StepFiles.Purpose.STATE, "SHARED=main\n".getBytes(StandardCharsets.UTF_8)), new StepReport());
        List<StepResult> two = List.of(new StepResult("pre", StepStatus.SUCCESS, 0, 1, null),
                new StepResult("main", StepStatus.SUCCESS, 0, 1, null));
        RunStatus passing = new RunStatus(false, false, false);
        Map<String, String> main = new StepValues(FACTS, stages, two.subList(0, 1), handed, Grants.Granted.NONE, Map.of(),
                passing, WORKSPACE).computed(stages.get(1));
        Map<String, String> post = new StepValues(FACTS, stages, two, handed, Grants.Granted.NONE, Map.of(), passing, WORKSPACE)
                .computed(stages.get(2));
        assertThat(main).containsOnly(Map.entry("STATE_FROM", "pre"), Map.entry("STATE_SHARED", "pre"));
        assertThat(post).containsOnly(Map.entry("STATE_FROM", "pre"), Map.entry("STATE_SHARED", "main"));
    }

    private static Step stage(String name, String id, List<String> stateFrom) {
        return new Step(name, "true", null, List.of(), Map.of(), null, null, false, dev.knotless.plan.StepCondition.ALWAYS,
                dev.knotless.plan.Shell.POSIX, Map.of(), null, id, new dev.knotless.plan.Deferred(null, null, null, stateFrom));
    }

    @Test
    void aStepReadsTheOutputsOutcomesAndConclusionsOfTheStepsBeforeByTheirIds() throws Exception {
        ran(1, StepStatus.SUCCESS, "v=1\n", false);
        ran(2, StepStatus.FAILURE, "", true);
        StepValues values = at(3, new RunStatus(false, false, false), DEPLOY);
        Step deploy = steps.get(2);
        assertThat(values.runs(deploy)).isTrue();
        Map<String, String> computed = values.computed(deploy);
        assertThat(computed).containsEntry("V", "1").containsEntry("TOKEN", "s3cr3t-value")
                .containsEntry("KNOTLESS_EXPR_1", "s3cr3t-value");
        Step resolved = values.resolved(deploy, computed);
        assertThat(resolved.name()).isEqualTo("Deploy main of 1");
        assertThat(resolved.run()).as("a secret never becomes the script's text, not even through env")
                .isEqualTo("echo 1 '' \"${KNOTLESS_EXPR_1}\" pull_request").doesNotContain("s3cr3t");
        assertThat(resolved.deferred().any()).isFalse();

        ended.set(0, new StepResult("s1", StepStatus.SUCCESS, 0, 1, null));
        handed.takeFiles(1, Map.of(StepFiles.Purpose.OUTPUTS, "v=2\n".getBytes(StandardCharsets.UTF_8)), new StepReport());
        assertThat(at(3, new RunStatus(false, false, false), DEPLOY).runs(deploy)).isFalse();
    }

    @Test
    void theStatusFunctionsAndJobStatusReadHowTheRunWentAndAnExpressionThatFailsSaysWhere() {
        Step last = steps.get(3);
        assertThat(last.condition()).isEqualTo(dev.knotless.plan.StepCondition.ALWAYS);
        StepValues passing = at(1, new RunStatus(false, false, false), Grants.Granted.NONE);
        StepValues failed = at(1, new RunStatus(true, false, false), Grants.Granted.NONE);
        StepValues cancelled = at(1, new RunStatus(true, true, true), Grants.Granted.NONE);
        assertThat(List.of(passing, failed, cancelled)).extracting(v -> {
            try {
                return v.runs(last);
            } catch (StepValues.Unresolved e) {
                throw new AssertionError(e);
            }
        }).containsExactly(false, true, true);
        StepValues.Unresolved e = catchThrowableOfType(StepValues.Unresolved.class,
                () -> failed.resolved(last, failed.computed(last)));
        assertThat(e.getMessage()).startsWith("its script 'echo ${{ fromJSON(github.ref_name) }}' could not be evaluated: ");
    }

    @Test
    void hashFilesIsTheHashOfEachMatchingFilesHashInPathOrderAndEmptyWhenNoneMatches() throws Exception {
        Step hashing = steps.get(4);
        StepValues values = at(1, new RunStatus(false, false, false), Grants.Granted.NONE);
        assertThat(values.runs(hashing)).isTrue();
        byte[] lock = sha256("{\"lockfileVersion\": 3}\n".getBytes(StandardCharsets.UTF_8));
        byte[] readme = sha256("# app\n".getBytes(StandardCharsets.UTF_8));
        assertThat(values.computed(hashing))
                .containsEntry("KEY", "deps-" + java.util.HexFormat.of().formatHex(sha256(lock)))
                .containsEntry("ALL", java.util.HexFormat.of().formatHex(sha256(readme)));
    }

    @Test
    void aManualRunsInputsAreReadAsTheirTypesAndAbsentOnOtherRuns() throws Exception {
        Step step = new GithubDialect().parseExpanded(".github/workflows/m.yml", """
                on:
                  workflow_dispatch:
                    inputs:
                      dry: {type: boolean}
                      count: {type: number, default: 1}
                      level: {type: choice, options: [info, debug]}
                jobs:
                  j:
                    runs-on: linux
                    steps:
                      - if: inputs.dry == true && inputs.count == 3
                        run: echo ${{ inputs.level }} ${{ toJSON(inputs.dry) }}
                """).getFirst().steps().getFirst();
        Map<String, String> manual = Map.of("KNOTLESS_INPUT_DRY", "true", "KNOTLESS_INPUT_COUNT", "3.0",
                "KNOTLESS_INPUT_LEVEL", "debug");
        StepValues values = new StepValues(FACTS, List.of(step), List.of(), handed, Grants.Granted.NONE, manual,
                new RunStatus(false, false, false), WORKSPACE);
        assertThat(values.runs(step)).isTrue();
        assertThat(values.resolved(step, values.computed(step)).run()).isEqualTo("echo debug true");
        StepValues push = new StepValues(FACTS, List.of(step), List.of(), handed, Grants.Granted.NONE, Map.of(),
                new RunStatus(false, false, false), WORKSPACE);
        assertThat(push.runs(step)).as("a push has no inputs: each reads as null").isFalse();
    }

    @Test
    void theEventsRepositoryAndAManualRunsInputsAsTextAreWhatTheRunKnowsOfGithubEvent() throws Exception {
        Step step = new GithubDialect().parseExpanded(".github/workflows/e.yml", """
                on:
                  workflow_dispatch:
                    inputs:
                      dry: {type: boolean}
                jobs:
                  j:
                    runs-on: linux
                    steps:
                      - run: >-
                          echo ${{ github.event.repository.full_name }} ${{ github.event.repository.name }}
                          ${{ github.event.repository.owner.login }} ${{ github.event.repository.default_branch }}
                          ${{ toJSON(github.event.inputs.dry) }} ${{ toJSON(inputs.dry) }}
                """).getFirst().steps().getFirst();
        RunFacts onRelease = RunFacts.of("alice/app", "refs/heads/trunk", "0123", "refs/heads/main", Event.MANUAL, "run-9",
                List.of());
        StepValues manual = new StepValues(onRelease, List.of(step), List.of(), handed, Grants.Granted.NONE,
                Map.of("KNOTLESS_INPUT_DRY", "true"), new RunStatus(false, false, false), WORKSPACE);
        assertThat(manual.resolved(step, manual.computed(step)).run())
                .as("github.event.inputs as text, as GitHub's payload has them; inputs as their type")
                .isEqualTo("echo alice/app app alice trunk \"true\" true");
        StepValues push = new StepValues(onRelease, List.of(step), List.of(), handed, Grants.Granted.NONE, Map.of(),
                new RunStatus(false, false, false), WORKSPACE);
        assertThat(push.resolved(step, push.computed(step)).run()).isEqualTo("echo alice/app app alice trunk null null");
    }

    @Test
    void theJobsARunNeedsAreReadByTheirIdsAcrossTheCombinationsOfTheirMatrix() throws Exception {
        List<Workflow> runs = new GithubDialect().parseAll(Map.of(".github/workflows/n.yml", """
                name: N
                on: push
                jobs:
                  build:
                    runs-on: linux
                    strategy: {matrix: {jdk: [17, 21]}}
                    steps: [{run: 'true'}]
                  deploy:
                    needs: build
                    runs-on: linux
                    steps:
                      - run: echo ${{ needs.build.result }} ${{ needs.build.outputs.jar }} ${{ toJSON(needs.build.outputs) }}
                """)).workflows();
        Step step = runs.getLast().steps().getFirst();
        RunFacts after = RunFacts.of("alice/app", "refs/heads/main", "0123", "refs/heads/main", Event.PUSH, "run-8", List.of(
                new dev.knotless.runner.run.request.NeededRun("N / build (17)", "N / build",
                        dev.knotless.checks.CheckStatus.SUCCESS, ordered("jar", "a-17.jar", "only17", "x")),
                new dev.knotless.runner.run.request.NeededRun("N / build (21)", "N / build",
                        dev.knotless.checks.CheckStatus.FAILURE, Map.of("jar", "a-21.jar"))));
        StepValues values = new StepValues(after, List.of(step), List.of(), handed, Grants.Granted.NONE, Map.of(),
                new RunStatus(false, false, false), WORKSPACE);
        assertThat(values.resolved(step, values.computed(step)).run())
                .isEqualTo("echo failure a-21.jar {\n  \"jar\": \"a-21.jar\",\n  \"only17\": \"x\"\n}");
    }

    private static Map<String, String> ordered(String... pairs) {
        Map<String, String> map = new java.util.LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return map;
    }

    @Test
    void aStepOfOursComputesNothingAndIsStartedAsItIs() throws Exception {
        Step ours = new Step("plain", "make", null, List.of());
        StepValues values = at(1, new RunStatus(false, false, false), Grants.Granted.NONE);
        assertThat(values.runs(ours)).isTrue();
        assertThat(values.computed(ours)).isEmpty();
        assertThat(values.resolved(ours, Map.of())).isSameAs(ours);
    }
}
