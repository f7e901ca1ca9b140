package dev.knotless.plan.github;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.knotless.checks.Event;
import dev.knotless.plan.Service;
import dev.knotless.plan.CommitFiles;
import dev.knotless.plan.Computed;
import dev.knotless.plan.JobCondition;
import dev.knotless.plan.RunValue;
import dev.knotless.plan.Step;
import dev.knotless.plan.Deferred;
import dev.knotless.plan.StepCondition;
import dev.knotless.plan.ChangedFiles;
import dev.knotless.plan.Triggers;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.WorkflowSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GithubDialectTest {

    private final GithubDialect dialect = new GithubDialect();

    @Test
    void eachJobIsARunNamedByTheWorkflowAndTheJobAndNeedsNameGroups() throws Exception {
        WorkflowSet set = dialect.parseAll(Map.of(".github/workflows/ci.yml", """
                name: CI
                on:
                  push:
                    branches: [main, 'release/**']
                  pull_request:
                jobs:
                  build:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - run: make
                  test:
                    name: Unit tests
                    needs: build
                    runs-on: [self-hosted, linux]
                    container:
                      image: local/jdk:21
                      env: {JAVA_OPTS: -Xmx1g}
                    env: {MODE: ci}
                    steps:
                      - name: Test
                        run: make test
                        env: {LEVEL: 2}
                        working-directory: ./core
                        timeout-minutes: 5
                        continue-on-error: true
                      - if: failure()
                        run: cat report.txt
                """));
        assertThat(set.errors()).isEmpty();
        assertThat(set.workflows()).extracting(Workflow::name).containsExactly("CI / build", "CI / Unit tests");
        Workflow build = set.workflows().get(0);
        Workflow test = set.workflows().get(1);
        assertThat(test.needs()).containsExactly("CI / build");
        assertThat(set.runsNeededBy(test)).containsExactly("CI / build");
        assertThat(build.on().matches(Event.PUSH, "main")).isTrue();
        assertThat(build.on().matches(Event.PUSH, "release/2.1")).isTrue();
        assertThat(build.on().matches(Event.PUSH, "feature")).isFalse();
        assertThat(build.on().matches(Event.PULL, "anything")).isTrue();
        assertThat(build.on().matches(Event.MANUAL, "main")).isFalse();
        assertThat(build.image()).isNull();
        assertThat(build.timeout()).isEqualTo(Duration.ofMinutes(360));
        assertThat(build.workspace().directory()).isEqualTo("/github/workspace");
        assertThat(build.workspace().home()).isEqualTo("/github/home");
        assertThat(build.steps()).extracting(Step::name).containsExactly("Run actions/checkout@v4", "Run make");
        assertThat(build.steps().get(1).shell()).isEqualTo(Shells.DEFAULT);
        assertThat(build.stepFiles().variables()).containsEntry(dev.knotless.plan.StepFiles.Purpose.OUTPUTS, "GITHUB_OUTPUT")
                .containsEntry(dev.knotless.plan.StepFiles.Purpose.ENVIRONMENT, "GITHUB_ENV").hasSize(5);
        assertThat(build.stepFiles().commands()).isTrue();
        assertThat(test.image()).isEqualTo("local/jdk:21");
        assertThat(test.variables()).containsExactly(Map.entry("GITHUB_ACTIONS", "true"), Map.entry("GITHUB_WORKFLOW", "CI"),
                Map.entry("GITHUB_JOB", "test"), Map.entry("GITHUB_WORKSPACE", "/github/workspace"),
                Map.entry("RUNNER_OS", "Linux"), Map.entry("RUNNER_TEMP", "/tmp"),
                Map.entry("RUNNER_TOOL_CACHE", "/tmp/toolcache"), Map.entry("RUNNER_NAME", "knotless"),
                Map.entry("RUNNER_ENVIRONMENT", "self-hosted"), Map.entry("JAVA_OPTS", "-Xmx1g"), Map.entry("MODE", "ci"));
        assertThat(test.steps().get(0).computedEnv()).containsOnlyKeys("GITHUB_SHA", "GITHUB_REF", "GITHUB_REF_NAME",
                "GITHUB_REF_TYPE", "GITHUB_EVENT_NAME", "GITHUB_REPOSITORY", "GITHUB_REPOSITORY_OWNER", "GITHUB_SERVER_URL",
                "GITHUB_RUN_ID",
                "RUNNER_ARCH");
        Step first = test.steps().get(0);
        assertThat(first.name()).isEqualTo("Test");
        assertThat(first.env()).containsExactly(Map.entry("LEVEL", "2"));
        assertThat(first.workingDirectory()).isEqualTo("core");
        assertThat(first.timeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(first.continueOnError()).isTrue();
        assertThat(test.steps().get(1).condition()).isEqualTo(StepCondition.FAILURE);
    }

    @Test
    void aMatrixExpandsAsGithubDoesWithIncludeAndExcludeAndFillsItsValuesIn() throws Exception {
        List<Workflow> runs = dialect.parseExpanded(".github/workflows/m.yml", """
                on: push
                jobs:
                  test:
                    runs-on: ${{ matrix.os }}
                    container: local/jdk:${{ matrix.jdk }}
                    continue-on-error: ${{ matrix.jdk == 25 }}
                    strategy:
                      fail-fast: false
                      max-parallel: 2
                      matrix:
                        os: [linux]
                        jdk: [17, 21]
                        exclude:
                          - jdk: 17
                        include:
                          - jdk: 21
                            extra: yes
                          - jdk: 25
                    steps:
                      - run: echo ${{ matrix.jdk }} ${{ matrix.extra }} ${{ strategy.job-index }}
                """);
        assertThat(runs).extracting(Workflow::name).containsExactly(
                ".github/workflows/m.yml / test (linux, 21, yes)", ".github/workflows/m.yml / test (25)");
        assertThat(runs).extracting(Workflow::image).containsExactly("local/jdk:21", "local/jdk:25");
        assertThat(runs).extracting(Workflow::continueOnError).as("an experimental combination may fail").containsExactly(false, true);
        assertThat(runs).extracting(w -> w.steps().get(0).run()).containsExactly("echo 21 yes 0", "echo 25  1");
        assertThat(runs.get(0).cell().group()).isEqualTo(".github/workflows/m.yml / test");
        assertThat(runs.get(0).cell().failFast()).isFalse();
        assertThat(runs.get(0).cell().maxParallel()).isEqualTo(2);
    }

    @Test
    void aJobNamedByItsMatrixKeepsThatNameAndItsGroupIsItsId() throws Exception {
        WorkflowSet set = dialect.parseAll(Map.of(".github/workflows/ci.yml", """
                name: CI
                on: [push]
                jobs:
                  test:
                    name: JDK ${{ matrix.jdk }}
                    runs-on: linux
                    strategy: {matrix: {jdk: [17, 21]}}
                    steps: [{run: 'true'}]
                  after:
                    needs: [test]
                    runs-on: linux
                    steps: [{run: 'true'}]
                """));
        assertThat(set.errors()).isEmpty();
        assertThat(set.workflows()).extracting(Workflow::name).containsExactly("CI / JDK 17", "CI / JDK 21", "CI / after");
        assertThat(set.runsNeededBy(set.workflows().get(2))).containsExactly("CI / JDK 17", "CI / JDK 21");
    }

    @Test
    void servicesAreReachedByTheirKeyOnTheirContainerPortAndWaitedForByIt() throws Exception {
        Workflow w = dialect.parse(".github/workflows/db.yml", """
                on: push
                jobs:
                  it:
                    runs-on: ubuntu-latest
                    services:
                      postgres:
                        image: local/postgres:15
                        env: {POSTGRES_PASSWORD: pw}
                        ports: ['15432:5432', 5433]
                        options: >-
                          --health-cmd "pg_isready -U postgres"
                          --health-interval 10s
                    steps: [{run: psql -h postgres}]
                """);
        assertThat(w.services()).singleElement().satisfies(s -> {
            assertThat(s.name()).isEqualTo("postgres");
            assertThat(s.image()).isEqualTo("local/postgres:15");
            assertThat(s.variables()).containsEntry("POSTGRES_PASSWORD", "pw");
            assertThat(s.ports()).containsExactly(5432, 5433);
            assertThat(s.readyWithin()).isEqualTo(Service.DEFAULT_WAIT);
        });
    }

    @Test
    void shellsAreGithubsCommands() throws Exception {
        Workflow w = dialect.parse(".github/workflows/s.yml", """
                on: push
                defaults: {run: {shell: sh, working-directory: app}}
                jobs:
                  j:
                    runs-on: linux
                    defaults: {run: {shell: bash}}
                    steps:
                      - run: a
                      - run: b
                        shell: python
                      - run: c
                        shell: perl {0}
                """);
        assertThat(w.steps()).extracting(Step::shell).containsExactly(Shells.BASH, Shells.PYTHON,
                new dev.knotless.plan.Shell(List.of("perl", "{0}"), "", ""));
        assertThat(Shells.BASH.command("/steps/1")).containsExactly("bash", "--noprofile", "--norc", "-eo", "pipefail", "/steps/1");
        assertThat(w.steps()).extracting(Step::workingDirectory).containsOnly("app");
    }

    @Test
    void triggersMapOntoTheRunnersEvents() throws Exception {
        Workflow w = dialect.parse(".github/workflows/t.yml", """
                on:
                  push:
                    branches-ignore: ['dependabot/**']
                  merge_group:
                  workflow_dispatch:
                    inputs:
                      level: {type: choice, options: [info, debug], default: info}
                      dry-run: {type: boolean}
                      count: {type: number, default: 3, required: true}
                  schedule:
                    - cron: '0 3 * * 1-5'
                jobs:
                  j: {runs-on: linux, steps: [{run: 'true'}]}
                """);
        assertThat(w.on().matches(Event.PUSH, "main")).isTrue();
        assertThat(w.on().matches(Event.PUSH, "dependabot/npm/x")).isFalse();
        assertThat(w.on().matches(Event.BATCH, "main")).isTrue();
        assertThat(w.on().matches(Event.MANUAL, "main")).isTrue();
        assertThat(w.on().matches(Event.PULL, "main")).isFalse();
        assertThat(w.on().schedules()).singleElement().satisfies(s -> assertThat(s.cron()).isEqualTo("0 3 * * 1-5"));
        assertThat(w.on().inputs().get("level").options()).containsExactly("info", "debug");
        assertThat(w.on().inputs().get("dry-run").defaultValue()).isEqualTo("false");
        assertThat(w.on().inputs().get("count").required()).isFalse();
        assertThat(w.on().inputs().get("count").defaultValue()).isEqualTo("3");
    }

    @Test
    void branchFiltersReadInOrderTheLastMatchDeciding() throws Exception {
        Workflow w = dialect.parse(".github/workflows/t.yml", """
                on:
                  push:
                    branches: ['releases/**', '!releases/**-alpha', 'releases/keep-alpha']
                jobs:
                  j: {runs-on: linux, steps: [{run: 'true'}]}
                """);
        assertThat(w.on().matches(Event.PUSH, "releases/1.0")).isTrue();
        assertThat(w.on().matches(Event.PUSH, "releases/1.0-alpha")).isFalse();
        assertThat(w.on().matches(Event.PUSH, "releases/keep-alpha")).isTrue();
        assertThat(w.on().matches(Event.PUSH, "main")).isFalse();
    }

    @Test
    void pathFiltersSelectAWorkflowWhenOneChangedFileIsSelectedAsGithubReadsThem() throws Exception {
        Workflow w = dialect.parse(".github/workflows/t.yml", """
                on:
                  push:
                    branches: [main]
                    paths: ['src/**', '**.java', '!src/generated/**', 'pom.xml']
                  pull_request:
                    paths-ignore: ['docs/**', '*.md']
                  workflow_dispatch:
                jobs:
                  j: {runs-on: linux, steps: [{run: 'true'}]}
                """);
        Triggers on = w.on();
        assertThat(on.filtersPaths(Event.PUSH)).isTrue();
        assertThat(on.filtersPaths(Event.MANUAL)).isFalse();
        assertThat(on.matchesPaths(Event.PUSH, changed("src/main/App.kt"))).isTrue();
        assertThat(on.matchesPaths(Event.PUSH, changed("tools/Gen.java"))).as("'**.java' anywhere").isTrue();
        assertThat(on.matchesPaths(Event.PUSH, changed("src/generated/Api.kt"))).as("excluded after").isFalse();
        assertThat(on.matchesPaths(Event.PUSH, changed("README.md", "docs/x.md"))).isFalse();
        assertThat(on.matchesPaths(Event.PUSH, changed("README.md", "pom.xml"))).as("one selected file is enough").isTrue();
        assertThat(on.matchesPaths(Event.PUSH, changed())).as("nothing changed").isFalse();
        assertThat(on.matchesPaths(Event.PUSH, new ChangedFiles.Unknown("a new branch"))).isTrue();
        // paths-ignore: runs unless every changed file is ignored; '*' stays within the root
        assertThat(on.matchesPaths(Event.PULL, changed("README.md", "docs/guide/a.md"))).isFalse();
        assertThat(on.matchesPaths(Event.PULL, changed("README.md", "src/notes.md"))).isTrue();
        assertThat(on.matchesPaths(Event.MANUAL, changed("README.md"))).as("no filter").isTrue();
        assertThat(on.matches(Event.PUSH, "main")).isTrue();
        assertThat(on.matches(Event.PUSH, "dev")).as("both filters must select").isFalse();
    }

    private static ChangedFiles changed(String... paths) {
        return new ChangedFiles.Known(List.of(paths));
    }

    @Test
    void aPathFilterIsOneOfPathsOrPathsIgnoreWithPatternsThisRunnerReadsAsWritten() {
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> dialect.parseExpanded(
                ".github/workflows/p.yml", """
                on:
                  push:
                    paths: ['src/**']
                    paths-ignore: ['docs/**']
                  pull_request:
                    paths: []
                  merge_group:
                    paths: ['src/**']
                jobs:
                  j: {runs-on: linux, steps: [{run: 'true'}]}
                """));
        assertThat(e.problems()).extracting(WorkflowException::getMessage).containsExactly(
                ".github/workflows/p.yml:4:5: field 'on.push.paths-ignore': 'paths' and 'paths-ignore' cannot both filter"
                        + " one event; write exclusions in 'paths' as '!PATTERN'",
                ".github/workflows/p.yml:6:12: field 'on.pull_request.paths': lists no pattern; remove it to run on every change",
                ".github/workflows/p.yml:8:5: field 'on.merge_group.paths': unknown field; expected one of branches,"
                        + " branches-ignore, types");
        WorkflowException pattern = catchThrowableOfType(WorkflowException.class, () -> dialect.parse(".github/workflows/q.yml", """
                on: {push: {paths: ['src/[ab]/**']}}
                jobs:
                  j: {runs-on: linux, steps: [{run: 'true'}]}
                """));
        assertThat(pattern.getMessage()).isEqualTo(".github/workflows/q.yml:1:21: field 'on.push.paths[0]': 'src/[ab]/**':"
                + " the pattern character '[' is not supported yet; use '*' and '**'");
    }

    @Test
    void everyProblemOfAFileIsReportedAtItsLineNotTheFirstOnly() {
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> dialect.parseExpanded(
                ".github/workflows/bad.yml", """
                on:
                  push:
                    tags: ['v*']
                  release:
                concurrency: ci
                jobs:
                  build:
                    runs-on: linux
                    environment: {name: production, kind: x}
                    steps:
                      - uses: actions/setup-java@v4
                      - run: make
                        shel: bash
                  deploy:
                    needs: [buld]
                    runs-on: linux
                    steps:
                      - run: make
                        shell: pwsh
                """));
        assertThat(e.problems()).extracting(WorkflowException::getMessage).containsExactly(
                ".github/workflows/bad.yml:3:5: field 'on.push.tags': not supported here: tag events are not carried out"
                        + " yet; a workflow that filters on tags would never run here",
                ".github/workflows/bad.yml:4:3: field 'on.release': event 'release' does not happen on this runner, which runs"
                        + " workflows on push, pull_request, merge_group, workflow_dispatch and schedule; remove it, or keep"
                        + " this workflow where that event happens",
                ".github/workflows/bad.yml:5:14: field 'concurrency': a group alone queues runs without cancelling the running"
                        + " one, which is not carried out: this runner cancels a branch's older runs, waiting or running,"
                        + " when a newer commit arrives; write {group: ${{ github.workflow }}-${{ github.ref }},"
                        + " cancel-in-progress: true} to ask for that, or remove 'concurrency'",
                ".github/workflows/bad.yml:9:37: field 'jobs.build.environment.kind': is not a key of 'environment' (name,"
                        + " url)",
                ".github/workflows/bad.yml:11:15: field 'jobs.build.steps[0].uses': 'actions/setup-java@v4': actions other"
                        + " than actions/checkout are not carried out yet; write the step as 'run'",
                ".github/workflows/bad.yml:13:9: field 'jobs.build.steps[1].shel': unknown field (did you mean 'shell'?);"
                        + " expected one of id, name, run, shell, working-directory, env, if, uses, with, continue-on-error,"
                        + " timeout-minutes",
                ".github/workflows/bad.yml:15:13: field 'jobs.deploy.needs[0]': needs job 'buld', which this workflow does"
                        + " not have (its jobs: build, deploy)",
                ".github/workflows/bad.yml:19:16: field 'jobs.deploy.steps[0].shell': 'pwsh' is not carried out here: jobs"
                        + " run in Linux containers; use bash, sh, python or a command with {0}");
        assertThat(e.getMessage()).startsWith(".github/workflows/bad.yml:3:5: field 'on.push.tags'")
                .endsWith("(and 7 more problems in the file)");
    }

    @Test
    void aJobsConditionIsTheRunsToDecideOverGithubNeedsAndInputsOnlyAndStatusFunctionsStartItWhateverItsNeedsDid()
            throws Exception {
        Map<String, Workflow> jobs = new java.util.HashMap<>();
        dialect.parseExpanded(".github/workflows/c.yml", """
                name: C
                on: push
                jobs:
                  build: {runs-on: linux, steps: [{run: 'true'}]}
                  deploy: {needs: build, if: "github.ref == 'refs/heads/main'", runs-on: linux, steps: [{run: 'true'}]}
                  report: {needs: [build, deploy], if: always(), runs-on: linux, steps: [{run: 'true'}]}
                  rescue: {needs: build, if: "failure() && needs.build.result == 'failure'", runs-on: linux, steps: [{run: 'true'}]}
                  never: {if: false, runs-on: linux, steps: [{run: 'true'}]}
                """).forEach(w -> jobs.put(w.group(), w));
        assertThat(jobs.get("C / build").condition()).isEqualTo(JobCondition.NEEDS_PASSED);
        assertThat(jobs.get("C / deploy").condition().gate()).isEqualTo(StepCondition.SUCCESS);
        assertThat(((Computed.Evaluated) jobs.get("C / deploy").condition().also()).text()).isEqualTo("github.ref == 'refs/heads/main'");
        assertThat(jobs.get("C / report").condition()).isEqualTo(new JobCondition(StepCondition.ALWAYS, null));
        assertThat(jobs.get("C / rescue").condition().needsPassed()).isFalse();
        assertThat(jobs.get("C / never").condition()).as("decided by the file, still a run that ends skipped")
                .isEqualTo(new JobCondition(StepCondition.SUCCESS, new Computed.Text("")));

        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> dialect.parseExpanded(
                ".github/workflows/c.yml", """
                on: push
                jobs:
                  a:
                    if: steps.x.outputs.y == 'z'
                    runs-on: linux
                    steps: [{run: 'true'}]
                  b:
                    if: env.DEPLOY == 'yes'
                    strategy: {matrix: {v: [1, 2]}}
                    runs-on: linux
                    steps: [{run: 'true'}]
                  c:
                    if: hashFiles('x') != ''
                    runs-on: linux
                    steps: [{run: 'true'}]
                """));
        assertThat(e.problems()).extracting(WorkflowException::getMessage).containsExactly(
                ".github/workflows/c.yml:4:9: field 'jobs.a.if': reads 'steps', which a job's 'if' cannot read (GitHub"
                        + " evaluates it before the job has a runner: 'github', 'needs', 'inputs' and 'vars' only)",
                ".github/workflows/c.yml:8:9: field 'jobs.b.if': reads 'env', which a job's 'if' cannot read (GitHub"
                        + " evaluates it before the job has a runner: 'github', 'needs', 'inputs' and 'vars' only)",
                ".github/workflows/c.yml:13:9: field 'jobs.c.if': calls hashFiles(), which reads the run's files, and a"
                        + " job's 'if' is decided before it has any");
    }

    @Test
    void aNeedOfNoJobIsNamedWithTheJobsThereAre() {
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> dialect.parseExpanded(
                ".github/workflows/n.yml", """
                on: push
                jobs:
                  build: {runs-on: linux, steps: [{run: 'true'}]}
                  deploy: {needs: buld, runs-on: linux, steps: [{run: 'true'}]}
                """));
        assertThat(e.getMessage()).isEqualTo(".github/workflows/n.yml:4:19: field 'jobs.deploy.needs': needs job 'buld',"
                + " which this workflow does not have (its jobs: build, deploy)");
    }

    @Test
    void expressionsOverWhatOnlyTheRunKnowsAreLeftToItWhereAStepStartsAndFailClosedElsewhere() {
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> dialect.parseExpanded(
                ".github/workflows/x.yml", """
                on: push
                jobs:
                  j:
                    runs-on: ${{ github.ref_name }}
                    steps:
                      - run: echo ${{ vars.REGION }}
                        timeout-minutes: ${{ vars.MINUTES }}
                      - if: secrets.TOKEN != ''
                        run: 'true'
                      - run: echo ${{ github.actor }}
                      - run: echo ${{ secrets[format('{0}', 'A')] }}
                      - env: {OK: "${{ success() }}"}
                        run: 'true'
                      - run: echo ${{ hashFiles('**/pom.xml') }}
                        timeout-minutes: ${{ hashFiles('x') }}
                      - shell: python
                        run: print("${{ secrets.TOKEN }}")
                      - name: Deploy ${{ secrets.TOKEN }}
                        run: 'true'
                      - run: echo ${{ matrix.nope }}
                      - run: echo ${{ inputs.level }}
                """));
        assertThat(e.problems()).extracting(WorkflowException::getMessage).containsExactly(
                ".github/workflows/x.yml:4:14: field 'jobs.j.runs-on': reads 'github', which only the run knows, and this"
                        + " field is read before the run starts (the file alone decides only 'matrix' and 'strategy')",
                ".github/workflows/x.yml:7:26: field 'jobs.j.steps[0].timeout-minutes': reads 'vars', which only the run"
                        + " knows, and this field is read before the run starts (the file alone decides only 'matrix' and"
                        + " 'strategy')",
                ".github/workflows/x.yml:8:13: field 'jobs.j.steps[1].if': reads 'secrets', which GitHub does not allow"
                        + " in 'if' either; test a variable of the step's 'env' set from the secret instead",
                ".github/workflows/x.yml:10:14: field 'jobs.j.steps[2].run': reads 'actor' of a context whose properties"
                        + " this runner computes are only: sha, ref, ref_name, ref_type, event_name, repository,"
                        + " repository_owner, server_url, run_id, event, workflow, job,"
                        + " workspace",
                ".github/workflows/x.yml:11:14: field 'jobs.j.steps[3].run': reads 'secrets' as a whole or by a computed"
                        + " name; name each secret as secrets.NAME, so that the runner knows which to grant the step",
                ".github/workflows/x.yml:12:19: field 'jobs.j.steps[4].env.OK': calls success(), which only a step's"
                        + " 'if' may call",
                ".github/workflows/x.yml:15:26: field 'jobs.j.steps[5].timeout-minutes': calls hashFiles(), which reads"
                        + " the run's files, and this field is read before the run starts",
                ".github/workflows/x.yml:17:14: field 'jobs.j.steps[6].run': reads 'secrets' in the script of a shell"
                        + " other than bash or sh; pass the secret through the step's 'env' and read the variable instead",
                ".github/workflows/x.yml:18:15: field 'jobs.j.steps[7].name': reads 'secrets', which a name shown on the"
                        + " check must not hold",
                ".github/workflows/x.yml:20:14: field 'jobs.j.steps[8].run': reads 'matrix', but the job has no matrix",
                ".github/workflows/x.yml:21:14: field 'jobs.j.steps[9].run': reads 'level' of a context whose properties"
                        + " this runner computes are only: none (for 'inputs': no such input is declared; for 'needs':"
                        + " the job needs no such job)");
    }

    @Test
    void whatOnlyTheRunKnowsIsCarriedAsExpressionsOverTheRunnersFactsAndSecretsNeverAsText() throws Exception {
        Workflow w = dialect.parseExpanded(".github/workflows/r.yml", """
                name: R
                on: push
                env:
                  SHA: ${{ github.sha }}
                  PLAIN: plain
                jobs:
                  j:
                    runs-on: linux
                    env:
                      TOKEN: ${{ secrets.TOKEN }}
                    steps:
                      - id: version
                        name: Version of ${{ github.ref_name }}
                        run: echo "v=1" >> "$GITHUB_OUTPUT"
                      - if: steps.version.outputs.v == '1'
                        env:
                          SHA: own
                          V: ${{ steps.version.outputs.v }}
                        run: echo '${{ secrets.DEPLOY }}' "${{ secrets.DEPLOY }}" ${{ github.sha }}
                      - if: failure() || steps.version.outcome == 'failure'
                        run: 'true'
                      - if: success() && job.status == 'success'
                        run: 'true'
                      - if: hashFiles('*.lock') != ''
                        run: echo ${{ hashFiles('**/pom.xml', '!target/**') }}
                """).getFirst();
        assertThat(w.variables()).containsEntry("PLAIN", "plain").doesNotContainKeys("SHA", "TOKEN");
        Step version = w.steps().get(0);
        assertThat(version.id()).isEqualTo("version");
        assertThat(version.name()).isEqualTo("Version of ${{ github.ref_name }}");
        assertThat(version.deferred().name()).isInstanceOfSatisfying(Computed.Evaluated.class,
                n -> assertThat(n.contexts().get("github")).isInstanceOf(RunValue.Entries.class));
        assertThat(version.deferred().run()).isNull();
        assertThat(version.computedEnv()).containsKeys("SHA", "TOKEN");
        assertThat(version.secrets()).containsExactly("TOKEN");
        assertThat(((Computed.Evaluated) version.computedEnv().get("GITHUB_SHA")).text()).isEqualTo("github.sha");

        Step deploy = w.steps().get(1);
        assertThat(deploy.condition()).isEqualTo(StepCondition.SUCCESS);
        assertThat(((Computed.Evaluated) deploy.deferred().when()).text()).isEqualTo("steps.version.outputs.v == '1'");
        assertThat(deploy.env()).containsExactly(Map.entry("SHA", "own"));
        assertThat(deploy.computedEnv()).containsKeys("TOKEN", "V", "KNOTLESS_EXPR_1", "KNOTLESS_EXPR_2")
                .doesNotContainKey("SHA");
        assertThat(deploy.secrets()).containsExactly("TOKEN", "DEPLOY");
        assertThat(deploy.run()).isEqualTo("echo '${KNOTLESS_EXPR_1}' \"${KNOTLESS_EXPR_2}\" ${{ github.sha }}");
        assertThat(((Computed.Evaluated) deploy.deferred().run()).text())
                .isEqualTo("echo '${KNOTLESS_EXPR_1}' \"${KNOTLESS_EXPR_2}\" ${{ github.sha }}");
        assertThat(((Computed.Evaluated) deploy.computedEnv().get("KNOTLESS_EXPR_1")).text()).isEqualTo("${{ secrets.DEPLOY }}");

        assertThat(w.steps().get(2).condition()).isEqualTo(StepCondition.ALWAYS);
        assertThat(((Computed.Evaluated) w.steps().get(2).deferred().when()).text())
                .isEqualTo("failure() || steps.version.outcome == 'failure'");
        assertThat(w.steps().get(3).condition()).isEqualTo(StepCondition.SUCCESS);
        assertThat(((Computed.Evaluated) w.steps().get(3).deferred().when()).expression().contexts()).containsExactly("job");
        Step hashing = w.steps().get(4);
        assertThat(hashing.condition()).isEqualTo(StepCondition.SUCCESS);
        assertThat(hashing.deferred().when()).as("a hash of files is the run's to work out").isNotNull();
        assertThat(((Computed.Evaluated) hashing.deferred().run()).text()).isEqualTo("echo ${{ hashFiles('**/pom.xml', '!target/**') }}");
    }

    @Test
    void aJobHandsOnItsOutputsAndReadsThoseOfTheJobsItNeedsByTheirIds() throws Exception {
        WorkflowSet set = dialect.parseAll(Map.of(".github/workflows/o.yml", """
                name: O
                on: push
                jobs:
                  build:
                    runs-on: linux
                    outputs:
                      version: ${{ steps.v.outputs.version }}
                    steps:
                      - id: v
                        run: echo "version=1" >> "$GITHUB_OUTPUT"
                  deploy:
                    needs: build
                    runs-on: linux
                    steps:
                      - if: needs.build.result == 'success'
                        run: echo ${{ needs.build.outputs.version }}
                """));
        assertThat(set.errors()).isEmpty();
        Workflow build = set.workflows().get(0);
        assertThat(((Computed.Evaluated) build.outputs().get("version")).text()).isEqualTo("${{ steps.v.outputs.version }}");
        Step deploy = set.workflows().get(1).steps().getFirst();
        Computed.Evaluated when = (Computed.Evaluated) deploy.deferred().when();
        assertThat(when.contexts().get("needs")).isEqualTo(new RunValue.Entries(Map.of("build", new RunValue.Needed("O / build"))));

        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> dialect.parseExpanded(
                ".github/workflows/p.yml", """
                on: push
                jobs:
                  a:
                    runs-on: linux
                    outputs:
                      token: ${{ secrets.TOKEN }}
                      1st: x
                    steps: [{run: 'true'}]
                  b:
                    runs-on: linux
                    steps:
                      - run: echo ${{ needs.a.outputs.token }}
                """));
        assertThat(e.problems()).extracting(WorkflowException::getMessage).containsExactly(
                ".github/workflows/p.yml:6:14: field 'jobs.a.outputs.token': reads 'secrets', which a value handed to other"
                        + " runs must not hold (GitHub leaves such an output out)",
                ".github/workflows/p.yml:7:7: field 'jobs.a.outputs.1st': '1st' is not a valid output name (letters, digits,"
                        + " '_' and '-', starting with a letter or '_')",
                ".github/workflows/p.yml:12:14: field 'jobs.b.steps[0].run': reads 'a' of a context whose properties this"
                        + " runner computes are only: none (for 'inputs': no such input is declared; for 'needs': the job"
                        + " needs no such job)");
    }

    @Test
    void githubEventIsWhatTheRunnerKnowsOfThePayloadAndTheRestIsRefusedNamingIt() throws Exception {
        dialect.parseExpanded(".github/workflows/e.yml", """
                on: {workflow_dispatch: {inputs: {level: {default: info}}}}
                jobs:
                  j:
                    runs-on: linux
                    steps:
                      - run: echo ${{ github.event.inputs.level }} ${{ github.event.repository.default_branch }}
                """);
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> dialect.parseExpanded(
                ".github/workflows/e.yml", """
                on: pull_request
                jobs:
                  j:
                    runs-on: linux
                    steps:
                      - run: echo ${{ github.event.pull_request.number }}
                """));
        assertThat(e.getMessage()).isEqualTo(".github/workflows/e.yml:6:14: field 'jobs.j.steps[0].run': reads"
                + " 'pull_request' of a context whose properties this runner computes are only: inputs, repository");
    }

    /** A commit's other files, in memory, as the runner's mirror answers for them. */
    static CommitFiles commit(Map<String, String> files) {
        return directory -> {
            Map<String, String> in = new java.util.TreeMap<>();
            files.forEach((path, text) -> {
                int slash = path.lastIndexOf('/');
                if ((slash < 0 ? "" : path.substring(0, slash)).equals(directory)) {
                    in.put(path, text);
                }
            });
            return new CommitFiles.Directory(in, Map.of());
        };
    }

    static final String DEPLOY_ACTION = """
            name: Deploy
            inputs:
              token: {required: true}
              target: {default: staging}
            outputs:
              url: {value: "${{ steps.push.outputs.url }}"}
            runs:
              using: composite
              steps:
                - id: push
                  shell: sh
                  run: echo "url=https://${{ inputs.target }}" >> "$GITHUB_OUTPUT"; deploy "${{ inputs.token }}"
                - shell: sh
                  run: echo done at $GITHUB_ACTION_PATH
            """;

    @Test
    void aLocalJavascriptActionIsOneStepOnTheRunnersNodeWithItsInputsAsVariables() throws Exception {
        WorkflowSet set = dialect.parseAll(Map.of(".github/workflows/j.yml", """
                name: J
                on: push
                jobs:
                  j:
                    runs-on: linux
                    steps:
                      - id: js
                        uses: ./.github/actions/js
                        if: github.ref == 'refs/heads/main'
                        continue-on-error: true
                        with:
                          who: ${{ github.ref_name }}
                          token: ${{ secrets.T }}
                      - run: echo after
                """), Map.of(), commit(Map.of(".github/actions/js/action.yml", """
                runs: {using: node24, main: dist/index.js, post: dist/post.js, post-if: "${{ success() }}"}
                inputs:
                  who: {required: true}
                  greeting words: {default: hello}
                  token: {}
                  node-version: {default: '24'}
                """)));
        assertThat(set.errors()).isEmpty();
        Step js = set.workflows().getFirst().steps().getFirst();
        assertThat(js.name()).isEqualTo("Run ./.github/actions/js");
        assertThat(js.id()).isEqualTo("js");
        assertThat(js.runtime()).isEqualTo(new dev.knotless.plan.BroughtRuntime("node", "24"));
        assertThat(js.run()).isEqualTo("exec /steps/.runtimes/node/bin/node /github/workspace/.github/actions/js/dist/index.js");
        // a name no shell takes travels under one, and the brought Node renames it back
        assertThat(js.env()).containsEntry("KNOTLESS_INPUT_1", "24")
                .containsEntry("KNOTLESS_RENAME", "KNOTLESS_INPUT_1=INPUT_NODE-VERSION");
        assertThat(js.env()).containsEntry("INPUT_GREETING_WORDS", "hello")
                .containsEntry("GITHUB_ACTION_PATH", "/github/workspace/.github/actions/js").doesNotContainKey("INPUT_TOKEN");
        assertThat(js.computedEnv()).containsKeys("INPUT_WHO", "INPUT_TOKEN");
        assertThat(js.secrets()).containsExactly("T");
        assertThat(js.continueOnError()).isTrue();
        assertThat(js.deferred().when()).isNotNull();
        // its post step runs after the job's own, reading main's outcome and state by main's id
        List<Step> steps = set.workflows().getFirst().steps();
        assertThat(steps).extracting(Step::name).containsExactly("Run ./.github/actions/js", "Run echo after",
                "Post Run ./.github/actions/js");
        Step post = steps.get(2);
        assertThat(post.run()).isEqualTo("exec /steps/.runtimes/node/bin/node /github/workspace/.github/actions/js/dist/post.js");
        assertThat(post.condition()).isEqualTo(StepCondition.SUCCESS);
        assertThat(post.deferred().stateFrom()).containsExactly("js");
        assertThat(((Computed.Evaluated) post.deferred().when()).text())
                .isEqualTo("steps['js'].outcome == 'success' || steps['js'].outcome == 'failure'");
        assertThat(post.computedEnv()).containsKeys("INPUT_WHO", "INPUT_TOKEN");
    }

    @Test
    void aJavascriptActionsPreStepsRunBeforeTheJobsStepsInOrderSharingStateWithMainAndPost() throws Exception {
        WorkflowSet set = dialect.parseAll(Map.of(".github/workflows/p.yml", """
                name: P
                on: push
                jobs:
                  j:
                    runs-on: linux
                    steps:
                      - run: echo first
                      - uses: ./.github/actions/a
                        if: github.ref == 'refs/heads/main'
                      - id: b
                        uses: ./.github/actions/b
                """), Map.of(), commit(Map.of(
                ".github/actions/a/action.yml", "runs: {using: node24, main: main.js, pre: pre.js, post: post.js}\n",
                ".github/actions/b/action.yml", "runs: {using: node20, main: main.js, pre: pre.js, pre-if: failure()}\n")));
        assertThat(set.errors()).isEmpty();
        List<Step> steps = set.workflows().getFirst().steps();
        assertThat(steps).extracting(Step::name).containsExactly("Pre Run ./.github/actions/a", "Pre Run ./.github/actions/b",
                "Run echo first", "Run ./.github/actions/a", "Run ./.github/actions/b", "Post Run ./.github/actions/a");
        Step preA = steps.get(0);
        assertThat(preA.run()).isEqualTo("exec /steps/.runtimes/node/bin/node /github/workspace/.github/actions/a/pre.js");
        assertThat(preA.id()).isEqualTo("-pre-2");
        // the calling step's if is not the pre step's: pre-if decides, always() when not given, as GitHub's runner
        assertThat(preA.condition()).isEqualTo(StepCondition.ALWAYS);
        assertThat(preA.deferred()).isEqualTo(Deferred.NONE);
        assertThat(preA.runtime()).isEqualTo(new dev.knotless.plan.BroughtRuntime("node", "24"));
        assertThat(steps.get(1).condition()).isEqualTo(StepCondition.FAILURE);
        assertThat(steps.get(3).deferred().stateFrom()).containsExactly("-pre-2");
        assertThat(steps.get(3).deferred().when()).isNotNull();
        assertThat(steps.get(4).id()).isEqualTo("b");
        assertThat(steps.get(4).deferred().stateFrom()).containsExactly("-pre-3");
        assertThat(steps.get(5).deferred().stateFrom()).containsExactly("-pre-2", "-2");
    }

    @Test
    void aLocalCompositeActionIsReadFromTheCommitIntoStepsOfItsOwnScope() throws Exception {
        WorkflowSet set = dialect.parseAll(Map.of(".github/workflows/l.yml", """
                name: L
                on: push
                jobs:
                  j:
                    runs-on: linux
                    steps:
                      - id: deploy
                        name: Deploy it
                        uses: ./.github/actions/deploy
                        with:
                          token: ${{ secrets.DEPLOY_TOKEN }}
                      - run: echo ${{ steps.deploy.outputs.url }}
                """), Map.of(), commit(Map.of(".github/actions/deploy/action.yml", DEPLOY_ACTION)));
        assertThat(set.errors()).isEmpty();
        List<Step> steps = set.workflows().getFirst().steps();
        assertThat(steps).extracting(Step::name).containsExactly("Deploy it / Run echo \"url=https://staging\" >>"
                + " \"$GITHUB_OUTPUT\"; deploy \"${KNOTLESS_EXPR_1}\"", "Deploy it / Run echo done at $GITHUB_ACTION_PATH",
                "Deploy it", "Run echo ${{ steps.deploy.outputs.url }}");
        assertThat(steps).extracting(Step::scope).containsExactly("/1", "/1", Step.JOB, Step.JOB);
        assertThat(steps).extracting(Step::id).containsExactly("push", "-2", "deploy", null);
        Step push = steps.get(0);
        assertThat(push.secrets()).as("the action's caller gave it a secret: each of its steps is granted it")
                .containsExactly("DEPLOY_TOKEN");
        assertThat(push.run()).doesNotContain("inputs.token");
        assertThat(push.env()).containsEntry("GITHUB_ACTION_PATH", "/github/workspace/.github/actions/deploy");
        Step end = steps.get(2);
        assertThat(end.condition()).isEqualTo(StepCondition.ALWAYS);
        assertThat(end.outputs()).containsOnlyKeys("url");
        assertThat(((Computed.Evaluated) end.deferred().run()).contexts().get("steps")).isEqualTo(new RunValue.Steps("/1"));
    }

    @Test
    void aLocalActionThatCannotBeReadOrAsksForWhatIsNotCarriedOutFailsClosedAtItsLine() {
        Map<String, String> files = Map.of(
                ".github/actions/deploy/action.yml", DEPLOY_ACTION,
                ".github/actions/js/action.yml", "name: JS\nruns: {using: node20, main: index.js, pre-if: steps.a.outputs.b}\n",
                ".github/actions/wrap/action.yml", "runs:\n  using: composite\n  steps: [{uses: ./.github/actions/staged}]\n",
                ".github/actions/staged/action.yml", "runs: {using: node20, main: index.js, pre: setup.js}\n",
                ".github/actions/loose/action.yml", "runs:\n  using: composite\n  steps:\n    - run: echo ${{ secrets.X }}\n"
                        + "    - run: 'true'\n      shell: sh\n      name: ${{ inputs.nope }}\n"
                        + "    - {run: 'echo ${{ secrets.X }}', shell: sh}\n",
                ".github/actions/self/action.yml", "runs:\n  using: composite\n  steps: [{uses: ./.github/actions/self}]\n");
        WorkflowSet set = dialect.parseAll(Map.of(".github/workflows/l.yml", """
                on: push
                jobs:
                  j:
                    runs-on: linux
                    steps:
                      - uses: ./.github/actions/missing
                      - uses: ./.github/actions/deploy
                        with: {tokn: x}
                      - uses: ./.github/actions/js
                      - uses: ./.github/actions/loose
                      - uses: ./.github/actions/self
                      - uses: ./../elsewhere
                      - uses: ./.github/actions/wrap
                """), Map.of(), commit(files));
        assertThat(set.errors()).singleElement().extracting(WorkflowException::problems).asInstanceOf(
                org.assertj.core.api.InstanceOfAssertFactories.list(WorkflowException.class))
                .extracting(WorkflowException::getMessage).containsExactly(
                ".github/workflows/l.yml:6:15: field 'jobs.j.steps[0].uses': './.github/actions/missing': the commit has no"
                        + " .github/actions/missing/action.yml or action.yaml (a local action is read from the commit the"
                        + " workflow is read from)",
                ".github/workflows/l.yml:8:16: field 'jobs.j.steps[1].with.tokn': the action declares no input 'tokn' (it"
                        + " has: token, target)",
                ".github/actions/js/action.yml:2:47: field 'runs.pre-if': 'steps.a.outputs.b' is not carried out yet:"
                        + " write always(), success(), failure() or cancelled()",
                ".github/actions/loose/action.yml:4:7: field 'runs.steps[0].shell': required: a composite action's 'run'"
                        + " step names its shell, as GitHub requires",
                ".github/actions/loose/action.yml:7:13: field 'runs.steps[1].name': reads 'nope' of a context whose"
                        + " properties this runner computes are only: none (for 'inputs': no such input is declared; for"
                        + " 'needs': the job needs no such job)",
                ".github/actions/loose/action.yml:8:13: field 'runs.steps[2].run': reads 'secrets', which a local action's"
                        + " steps cannot read, as on GitHub: pass the secret to it as an input",
                ".github/actions/self/action.yml:3:18: field 'runs.steps[0].uses': local actions call local actions more"
                        + " than 10 deep",
                ".github/workflows/l.yml:12:15: field 'jobs.j.steps[5].uses': './../elsewhere' is outside the repository",
                ".github/actions/wrap/action.yml:3:18: field 'runs.steps[0].uses': './.github/actions/staged' has a 'pre' or"
                        + " 'post' step, which is not carried out yet for an action used by a composite action");
    }

    @Test
    void aCompositeActionsStepsTakeTheirCallersConditionWhenItReadsOnlyWhatStaysTheSame() throws Exception {
        WorkflowSet set = dialect.parseAll(Map.of(".github/workflows/g.yml", """
                on: push
                jobs:
                  j:
                    runs-on: linux
                    steps:
                      - id: deploy
                        if: github.ref == 'refs/heads/main'
                        uses: ./.github/actions/deploy
                        with: {token: x}
                """), Map.of(), commit(Map.of(".github/actions/deploy/action.yml", DEPLOY_ACTION)));
        assertThat(set.errors()).isEmpty();
        List<Step> steps = set.workflows().getFirst().steps();
        Computed guard = steps.getLast().deferred().when();
        assertThat(guard).isInstanceOfSatisfying(Computed.Evaluated.class,
                e -> assertThat(e.text()).isEqualTo("github.ref == 'refs/heads/main'"));
        assertThat(steps.getLast().id()).isEqualTo("deploy");
        for (Step step : steps.subList(0, steps.size() - 1)) {
            assertThat(step.deferred().when()).as(step.name()).satisfiesAnyOf(
                    when -> assertThat(when).isSameAs(guard),
                    when -> assertThat(((Computed.All) when).conditions().getFirst()).isSameAs(guard));
        }
    }

    @Test
    void aConditionOnACompositeActionsCallerThatStepsCanChangeIsRefused() {
        WorkflowSet set = dialect.parseAll(Map.of(".github/workflows/g.yml", """
                on: push
                jobs:
                  j:
                    runs-on: linux
                    steps:
                      - id: a
                        run: echo ok=1 >> "$GITHUB_OUTPUT"
                      - if: steps.a.outputs.ok == '1'
                        uses: ./.github/actions/deploy
                        with: {token: x}
                      - if: failure()
                        uses: ./.github/actions/deploy
                        with: {token: x}
                """), Map.of(), commit(Map.of(".github/actions/deploy/action.yml", DEPLOY_ACTION)));
        String why = "a condition on a step that uses a local composite action may read only what stays the same"
                + " through the run (github, runner, matrix, strategy, needs, inputs); one that calls a status function or"
                + " reads steps, env or job is not carried out yet: put it on the action's steps";
        assertThat(set.errors()).singleElement().extracting(WorkflowException::problems).asInstanceOf(
                org.assertj.core.api.InstanceOfAssertFactories.list(WorkflowException.class))
                .extracting(WorkflowException::getMessage).containsExactly(
                ".github/workflows/g.yml:8:13: field 'jobs.j.steps[1].if': " + why,
                ".github/workflows/g.yml:11:13: field 'jobs.j.steps[2].if': " + why);
    }

    @Test
    void anActionInputNamedWhatNoProcessCanBeGivenIsRefusedAtItsName() {
        WorkflowSet set = dialect.parseAll(Map.of(".github/workflows/i.yml", """
                on: push
                jobs:
                  j:
                    runs-on: linux
                    steps: [{uses: ./.github/actions/js}]
                """), Map.of(), commit(Map.of(".github/actions/js/action.yml", """
                runs: {using: node24, main: index.js}
                inputs:
                  java-version: {default: '21'}
                  a=b: {}
                """)));
        assertThat(set.errors()).singleElement().extracting(WorkflowException::getMessage).isEqualTo(
                ".github/actions/js/action.yml:4:3: field 'inputs.a=b': an input's name is letters, digits and _ - . or"
                        + " spaces, starting with a letter, a digit or _");
    }

    @Test
    void checkoutsInputsBeyondWhatTheRunnersCheckoutGivesFailClosed() {
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> dialect.parseExpanded(
                ".github/workflows/c.yml", """
                on: push
                jobs:
                  j:
                    runs-on: linux
                    steps:
                      - uses: actions/checkout@v4
                        with: {fetch-depth: 1, persist-credentials: false}
                      - uses: actions/checkout@v4
                        with: {fetch-depth: 2}
                      - uses: actions/checkout@v4
                        with: {fetch-depth: 0, fetch-tags: false}
                """));
        assertThat(e.problems()).extracting(WorkflowException::getMessage).containsExactly(
                ".github/workflows/c.yml:9:29: field 'jobs.j.steps[1].with.fetch-depth': actions/checkout's 'fetch-depth: 2'"
                        + " is not carried out yet: the runner checks out the run's commit into the workspace, one commit"
                        + " deep or with its whole history (fetch-depth: 0); remove it or do it in a 'run' step",
                ".github/workflows/c.yml:11:15: field 'jobs.j.steps[2].with': 'fetch-tags: false' with 'fetch-depth: 0' is not"
                        + " carried out: the whole history comes with the tags in it");
    }

    @Test
    void aJobsEnvironmentIsANameOrANameWithAnAddressDecidedWhenTheFileIsRead() throws Exception {
        Map<String, Workflow> jobs = new java.util.HashMap<>();
        dialect.parseExpanded(".github/workflows/d.yml", """
                name: D
                on: push
                jobs:
                  plain: {runs-on: x, environment: production, steps: [{run: 'true'}]}
                  staged:
                    runs-on: x
                    strategy: {matrix: {region: [eu]}}
                    environment: {name: "staging-${{ matrix.region }}", url: "https://${{ matrix.region }}.example"}
                    steps: [{run: 'true'}]
                  none: {runs-on: x, steps: [{run: 'true'}]}
                """).forEach(w -> jobs.put(w.name(), w));
        assertThat(jobs.get("D / plain").deployment()).isEqualTo(new dev.knotless.plan.Deployment("production", null));
        assertThat(jobs.get("D / staged (eu)").deployment())
                .isEqualTo(new dev.knotless.plan.Deployment("staging-eu", "https://eu.example"));
        assertThat(jobs.get("D / none").deployment()).isNull();
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> dialect.parseExpanded(
                ".github/workflows/d.yml", """
                on: push
                jobs:
                  a: {runs-on: x, environment: "${{ github.ref_name }}", steps: [{run: 'true'}]}
                  b: {runs-on: x, environment: {url: "https://x.example"}, steps: [{run: 'true'}]}
                """));
        assertThat(e.problems()).extracting(WorkflowException::getMessage).containsExactly(
                ".github/workflows/d.yml:3:32: field 'jobs.a.environment': reads 'github', which only the run knows, and"
                        + " this field is read before the run starts (the file alone decides only 'matrix' and 'strategy')",
                ".github/workflows/d.yml:4:32: field 'jobs.b.environment': needs a 'name'");
    }

    @Test
    void aRunNameIsLeftToTheRunOverGithubInputsAndVarsOnly() throws Exception {
        Workflow w = dialect.parse(".github/workflows/r.yml", """
                name: Deploy
                run-name: Deploy ${{ inputs.target }} by ${{ github.ref_name }}
                on: {workflow_dispatch: {inputs: {target: {type: string, default: staging}}}}
                jobs: {j: {runs-on: x, steps: [{run: 'true'}]}}
                """);
        assertThat(w.runName()).isInstanceOfSatisfying(dev.knotless.plan.Computed.Evaluated.class,
                e -> assertThat(e.text()).isEqualTo("Deploy ${{ inputs.target }} by ${{ github.ref_name }}"));
        assertThat(dialect.parse(".github/workflows/r.yml", "run-name: Nightly\non: push\njobs: {j: {runs-on: x, steps:"
                + " [{run: 'true'}]}}\n").runName()).isEqualTo(new dev.knotless.plan.Computed.Text("Nightly"));
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> dialect.parseExpanded(
                ".github/workflows/r.yml", """
                run-name: ${{ env.X }} ${{ hashFiles('x') }}
                on: push
                jobs: {j: {runs-on: x, steps: [{run: 'true'}]}}
                """));
        assertThat(e.problems()).extracting(WorkflowException::getMessage).containsExactly(
                ".github/workflows/r.yml:1:11: field 'run-name': reads 'env', which a run name cannot read (GitHub works it"
                        + " out before any job: 'github', 'inputs' and 'vars' only)");
    }

    @Test
    void fetchDepthZeroAsksForTheWholeHistoryInTheJobsCheckout() throws Exception {
        Workflow whole = dialect.parse(".github/workflows/c.yml", """
                on: push
                jobs:
                  j:
                    runs-on: linux
                    steps:
                      - uses: actions/checkout@v4
                        with: {fetch-depth: 0}
                      - run: git describe --tags
                """);
        assertThat(whole.workspace().history()).isTrue();
        assertThat(whole.workspace().directory()).isEqualTo("/github/workspace");
        Workflow shallow = dialect.parse(".github/workflows/c.yml", """
                on: push
                jobs:
                  j:
                    runs-on: linux
                    steps:
                      - uses: actions/checkout@v4
                      - run: git log -1
                """);
        assertThat(shallow.workspace().history()).isFalse();
    }

    @Test
    void githubsOnIsAStringNotYamlOnesBoolean() throws Exception {
        Workflow w = dialect.parse(".github/workflows/o.yml", "on: workflow_dispatch\njobs: {j: {runs-on: x, steps: [{run: 'true'}]}}\n");
        assertThat(w.on().matches(Event.MANUAL, "main")).isTrue();
    }

    @Test
    void aStepConditionOnTheMatrixIsDecidedPerCombinationAndStatusFunctionsAreTheRunsConditions() throws Exception {
        List<Workflow> runs = dialect.parseExpanded(".github/workflows/c.yml", """
                on: push
                jobs:
                  j:
                    runs-on: linux
                    strategy: {matrix: {os: [linux, mac]}}
                    steps:
                      - run: build
                      - if: matrix.os == 'LINUX'
                        run: linux-only
                      - if: ${{ always() }}
                        run: report
                      - if: cancelled()
                        run: tidy
                """);
        assertThat(runs.get(0).steps()).extracting(Step::run).containsExactly("build", "linux-only", "report", "tidy");
        assertThat(runs.get(1).steps()).extracting(Step::run).containsExactly("build", "report", "tidy");
        assertThat(runs.get(0).steps()).extracting(Step::condition).containsExactly(StepCondition.SUCCESS,
                StepCondition.SUCCESS, StepCondition.ALWAYS, StepCondition.CANCELLED);
    }

    @Test
    void aFileWithoutOnOrJobsSaysWhatIsMissing() {
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> dialect.parseExpanded(
                ".github/workflows/e.yml", "name: E\n"));
        assertThat(e.problems()).extracting(WorkflowException::getMessage).containsExactly(
                ".github/workflows/e.yml:1:1: field 'on': required: the events that run the workflow, such as [push, pull_request]",
                ".github/workflows/e.yml:1:1: field 'jobs': required: a workflow needs at least one job");
    }

    @Test
    void aServiceIsNamedAsAHostAndTakesOnlyHealthOptions() {
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> dialect.parseExpanded(
                ".github/workflows/s.yml", """
                on: push
                jobs:
                  j:
                    runs-on: linux
                    services:
                      My_DB: {image: local/pg:15}
                      cache: {image: local/redis:7, options: --privileged}
                    steps: [{run: 'true'}]
                """));
        assertThat(e.problems()).extracting(WorkflowException::getMessage).containsExactly(
                ".github/workflows/s.yml:6:7: field 'jobs.j.services.My_DB': 'My_DB' is not a host name, which a service is"
                        + " reached by here: lower-case letters, digits and '-'",
                ".github/workflows/s.yml:7:46: field 'jobs.j.services.cache.options': the docker option '--privileged' is not"
                        + " carried out here; a service takes only --health-cmd, --health-interval, --health-timeout,"
                        + " --health-retries, --health-start-period (it is waited for by its ports)");
    }

    @Test
    void aMistypedJobKeyIsAnsweredWithTheClosestAndEveryKeyInAStableOrder() {
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> dialect.parseExpanded(
                ".github/workflows/k.yml", "on: push\njobs: {j: {runs-on: x, stesp: [], steps: [{run: 'true'}]}}\n"));
        assertThat(e.getMessage()).isEqualTo(".github/workflows/k.yml:2:24: field 'jobs.j.stesp': unknown field (did you mean"
                + " 'steps'?); expected one of name, needs, runs-on, container, services, env, defaults, steps,"
                + " timeout-minutes, strategy, permissions, continue-on-error, outputs, concurrency, if, environment,"
                + " secrets, uses, with");
    }

    @Test
    void whatTheFileDecidesOfTheRunnersContextsIsFilledInBeforeTheRun() throws Exception {
        Workflow w = dialect.parseExpanded(".github/workflows/k.yml", """
                name: K
                on: push
                jobs:
                  j:
                    runs-on: ${{ runner.os == 'Linux' && 'linux-big' || 'other' }}
                    timeout-minutes: ${{ github.workflow == 'K' && 7 || 9 }}
                    steps:
                      - working-directory: ${{ github.workspace }}/sub
                        if: runner.os == 'Linux'
                        run: echo ${{ github.job }}
                      - if: runner.os == 'Windows'
                        run: never
                """).getFirst();
        assertThat(w.labels()).containsExactly("linux-big");
        assertThat(w.timeout()).isEqualTo(Duration.ofMinutes(7));
        assertThat(w.steps()).singleElement().satisfies(step -> {
            assertThat(step.workingDirectory()).isEqualTo("sub");
            assertThat(step.run()).isEqualTo("echo j");
            assertThat(step.deferred().any()).isFalse();
        });
    }

    @Test
    void concurrencyIsAcceptedWhereItAsksForWhatTheRunnerDoesAnywayAndRefusedElsewhere() throws Exception {
        assertThat(dialect.parseExpanded(".github/workflows/c.yml", """
                on: push
                concurrency: {group: "${{ github.workflow }}-${{ github.ref }}", cancel-in-progress: true}
                jobs:
                  j:
                    runs-on: linux
                    concurrency: {group: "pr-${{ github.head_ref || github.ref }}", cancel-in-progress: true}
                    steps: [{run: 'true'}]
                """)).hasSize(1);
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> dialect.parseExpanded(
                ".github/workflows/d.yml", """
                on: push
                concurrency: deploy-${{ github.ref }}
                jobs:
                  a:
                    runs-on: linux
                    concurrency: {group: deploy, cancel-in-progress: true}
                    steps: [{run: 'true'}]
                  b:
                    runs-on: linux
                    concurrency: {group: "${{ github.ref }}", cancel-in-progress: "${{ github.ref != 'refs/heads/main' }}"}
                    steps: [{run: 'true'}]
                """));
        String what = "this runner cancels a branch's older runs, waiting or running, when a newer commit arrives; write"
                + " {group: ${{ github.workflow }}-${{ github.ref }}, cancel-in-progress: true} to ask for that, or remove"
                + " 'concurrency'";
        assertThat(e.problems()).extracting(WorkflowException::getMessage).containsExactly(
                ".github/workflows/d.yml:2:14: field 'concurrency': a group alone queues runs without cancelling the"
                        + " running one, which is not carried out: " + what,
                ".github/workflows/d.yml:6:26: field 'jobs.a.concurrency.group': a group that is not one per ref is not"
                        + " carried out: " + what,
                ".github/workflows/d.yml:10:67: field 'jobs.b.concurrency.cancel-in-progress': only 'true' is carried out: "
                        + what);
    }
}
