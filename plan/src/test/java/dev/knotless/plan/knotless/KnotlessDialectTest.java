package dev.knotless.plan.knotless;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.knotless.checks.Event;
import dev.knotless.executor.Resources;
import dev.knotless.plan.ChangedFiles;
import dev.knotless.plan.PrePost;
import dev.knotless.plan.Retry;
import dev.knotless.plan.Shell;
import dev.knotless.plan.Step;
import dev.knotless.plan.StepCondition;
import dev.knotless.plan.StepFiles;
import dev.knotless.plan.Triggers;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.WorkflowSet;
import dev.knotless.plan.Workspace;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KnotlessDialectTest {

    private static final String FILE = ".knotless/workflows/ci.yaml";

    private static Workflow parse(String yaml) throws WorkflowException {
        return new KnotlessDialect().parse(FILE, yaml);
    }

    @Test
    void everyFieldIsRead() throws Exception {
        Workflow workflow = parse("""
                name: Build and test
                on:
                  push:
                    branches: [main, "release/*"]
                  pull: {}
                  manual:
                runners: [big-box, gpu-1]
                image: eclipse-temurin:21
                timeout: 1h30m
                resources:
                  cpu: "0.5"
                  memory: 512Mi
                variables:
                  GREETING: hello
                  COUNT: 3
                  DEBUG: false
                cache: [.m2/repository, node_modules]
                steps:
                  - name: compile
                    run: mvn -q compile
                    timeout: 10m
                    secrets: [MAVEN_TOKEN, SIGNING_KEY]
                  - run: |
                      mvn test
                      echo done
                """);

        assertThat(workflow.name()).isEqualTo("Build and test");
        assertThat(workflow.file()).isEqualTo(FILE);
        assertThat(workflow.on().branches()).containsExactly(
                Map.entry(Event.PUSH, List.of("main", "release/*")),
                Map.entry(Event.PULL, List.of()),
                Map.entry(Event.MANUAL, List.of()));
        assertThat(workflow.runners()).containsExactly("big-box", "gpu-1");
        assertThat(workflow.image()).isEqualTo("eclipse-temurin:21");
        assertThat(workflow.timeout()).isEqualTo(Duration.ofMinutes(90));
        assertThat(workflow.resources()).isEqualTo(new Resources(500, 512L << 20));
        assertThat(workflow.variables()).containsExactly(
                Map.entry("GREETING", "hello"), Map.entry("COUNT", "3"), Map.entry("DEBUG", "false"));
        assertThat(workflow.cache()).containsExactly(".m2/repository", "node_modules");
        assertThat(workflow.steps()).containsExactly(
                new Step("compile", "mvn -q compile", Duration.ofMinutes(10), List.of("MAVEN_TOKEN", "SIGNING_KEY")),
                new Step("step 2", "mvn test\necho done\n", null, List.of()));
    }

    @Test
    void aWorkflowWithOnlyStepsGetsTheDefaults() throws Exception {
        Workflow workflow = parse("steps:\n  - run: make\n");

        assertThat(workflow.name()).isEqualTo("ci");
        assertThat(workflow.on()).isEqualTo(Triggers.DEFAULT);
        assertThat(workflow.runners()).isEmpty();
        assertThat(workflow.image()).isNull();
        assertThat(workflow.timeout()).isNull();
        assertThat(workflow.resources()).isEqualTo(Resources.DEFAULT);
        assertThat(workflow.variables()).isEmpty();
        assertThat(workflow.cache()).isEmpty();
        assertThat(workflow.steps()).containsExactly(new Step("step 1", "make", null, List.of()));
    }

    @Test
    void theDefaultNameDropsTheDirectoryAndTheExtension() throws Exception {
        assertThat(new KnotlessDialect().parse("a/b/nightly.build.yml", "steps: [{run: x}]").name()).isEqualTo("nightly.build");
        assertThat(new KnotlessDialect().parse("lint.yaml", "steps: [{run: x}]").name()).isEqualTo("lint");
    }

    @Test
    void onTakesOneEventAsAString() throws Exception {
        Workflow workflow = parse("on: pull\nsteps: [{run: x}]");
        assertThat(workflow.on()).isEqualTo(Triggers.of(Event.PULL));
    }

    @Test
    void onTakesAListOfEvents() throws Exception {
        Workflow workflow = parse("on: [push, pull, batch, manual]\nsteps: [{run: x}]");
        assertThat(workflow.on().events()).containsExactly(Event.PUSH, Event.PULL, Event.BATCH, Event.MANUAL);
        assertThat(workflow.on().matches(Event.BATCH, "any/branch")).isTrue();
    }

    @Test
    void onTakesAMapWhoseEmptyOrMissingBranchesMeanEveryBranch() throws Exception {
        Workflow workflow = parse("""
                on:
                  push: {branches: ["**"]}
                  pull: ~
                  batch: {}
                  manual: {branches: [main]}
                steps: [{run: x}]
                """);
        assertThat(workflow.on().branches()).containsExactly(
                Map.entry(Event.PUSH, List.of("**")),
                Map.entry(Event.PULL, List.of()),
                Map.entry(Event.BATCH, List.of()),
                Map.entry(Event.MANUAL, List.of("main")));
        assertThat(workflow.on().matches(Event.MANUAL, "dev")).isFalse();
        assertThat(workflow.on().matches(Event.PUSH, "a/b")).isTrue();
    }

    @Test
    void timeoutsTakeEveryDurationForm() throws Exception {
        Map<String, Duration> forms = new LinkedHashMap<>();
        forms.put("90s", Duration.ofSeconds(90));
        forms.put("10m", Duration.ofMinutes(10));
        forms.put("1h", Duration.ofHours(1));
        forms.put("1h30m", Duration.ofMinutes(90));
        forms.put("2h5m7s", Duration.ofSeconds(2 * 3600 + 5 * 60 + 7));
        forms.put("45", Duration.ofSeconds(45));
        forms.put("\"120\"", Duration.ofSeconds(120));
        for (var form : forms.entrySet()) {
            Workflow workflow = parse("timeout: " + form.getKey() + "\nsteps: [{run: x, timeout: " + form.getKey() + "}]");
            assertThat(workflow.timeout()).as(form.getKey()).isEqualTo(form.getValue());
            assertThat(workflow.steps().get(0).timeout()).as(form.getKey()).isEqualTo(form.getValue());
        }
    }

    @Test
    void resourcesTakeKubernetesAndDockerQuantities() throws Exception {
        assertThat(parse("resources: {cpu: 2, memory: 1G}\nsteps: [{run: x}]").resources())
                .isEqualTo(new Resources(2000, 1_000_000_000L));
        assertThat(parse("resources: {cpu: 500m, memory: 512m}\nsteps: [{run: x}]").resources())
                .isEqualTo(new Resources(500, 512L << 20));
        assertThat(parse("resources: {cpu: 0.25}\nsteps: [{run: x}]").resources())
                .isEqualTo(new Resources(250, 0));
        assertThat(parse("resources: {memory: 2Gi}\nsteps: [{run: x}]").resources())
                .isEqualTo(new Resources(0, 2L << 30));
        assertThat(parse("resources: {}\nsteps: [{run: x}]").resources()).isEqualTo(Resources.DEFAULT);
    }

    @Test
    void variableValuesKeepTheirTextExactlyAsWritten() throws Exception {
        Workflow workflow = parse("""
                variables:
                  VERSION: 1.10
                  OCTAL: 007
                  HEX: 0x1F
                  YES: yes
                  TRUE_: True
                  EMPTY: ''
                  TAGGED: !!str 5
                  _under: x
                steps: [{run: x}]
                """);
        assertThat(workflow.variables()).containsExactly(
                Map.entry("VERSION", "1.10"), Map.entry("OCTAL", "007"), Map.entry("HEX", "0x1F"),
                Map.entry("YES", "yes"), Map.entry("TRUE_", "True"), Map.entry("EMPTY", ""),
                Map.entry("TAGGED", "5"), Map.entry("_under", "x"));
    }

    @Test
    void hostileValuesRoundTripUnchanged() throws Exception {
        Workflow workflow = parse("""
                name: "ünïcødé ✓ 'quotes' \\"double\\" $(rm -rf /) `id` ; & | > <"
                variables:
                  INJECT: "$(touch /tmp/pwned); `id`; ${HOME} \\\\ \\" '"
                  MULTI: "line one\\nline two\\r\\n\\ttabbed"
                  EMOJI: "🦀 ß 中文"
                  YAMLISH: "key: value # not a comment"
                steps:
                  - name: "-- --help"
                    run: |
                      echo "$INJECT" 'single' \\
                        && printf '%s\\n' "${MULTI}"
                      # a comment ; rm -rf /
                """);
        assertThat(workflow.name()).isEqualTo("ünïcødé ✓ 'quotes' \"double\" $(rm -rf /) `id` ; & | > <");
        assertThat(workflow.variables()).containsExactly(
                Map.entry("INJECT", "$(touch /tmp/pwned); `id`; ${HOME} \\ \" '"),
                Map.entry("MULTI", "line one\nline two\r\n\ttabbed"),
                Map.entry("EMOJI", "🦀 ß 中文"),
                Map.entry("YAMLISH", "key: value # not a comment"));
        assertThat(workflow.steps().get(0).name()).isEqualTo("-- --help");
        assertThat(workflow.steps().get(0).run()).isEqualTo(
                "echo \"$INJECT\" 'single' \\\n  && printf '%s\\n' \"${MULTI}\"\n# a comment ; rm -rf /\n");
    }

    @Test
    void aScalarWrittenWithoutQuotesIsTakenAsItsText() throws Exception {
        Workflow workflow = parse("name: 2024\nimage: 3\nsteps: [{run: true}, {run: 42, name: 1.0}]");
        assertThat(workflow.name()).isEqualTo("2024");
        assertThat(workflow.image()).isEqualTo("3");
        assertThat(workflow.steps()).extracting(Step::run).containsExactly("true", "42");
        assertThat(workflow.steps().get(1).name()).isEqualTo("1.0");
    }

    @Test
    void anchorsAliasesAndMergeKeysAreResolved() throws Exception {
        Workflow workflow = parse("""
                variables: &vars
                  A: one
                  B: two
                steps:
                  - &build
                    name: build
                    run: make
                    timeout: 5m
                  - <<: *build
                    name: build again
                  - name: merged vars
                    run: env
                    secrets: &secrets [TOKEN]
                  - run: x
                    secrets: *secrets
                """);
        assertThat(workflow.variables()).containsExactly(Map.entry("A", "one"), Map.entry("B", "two"));
        assertThat(workflow.steps().get(1)).isEqualTo(new Step("build again", "make", Duration.ofMinutes(5), List.of()));
        assertThat(workflow.steps().get(3).secrets()).containsExactly("TOKEN");
    }

    @Test
    void scalarAnchorsAndAliasesAreResolvedAsTheReferenceSays() throws Exception {
        Workflow workflow = parse("""
                timeout: &long 30m
                variables:
                  IMAGE: &image "debian:bookworm"
                  AGAIN: *image
                  NUMBER: &n 42
                  COPY: *n
                steps:
                  - name: &name build
                    run: &r make all
                    timeout: *long
                    secrets: [&token TOKEN]
                  - name: again
                    run: *r
                    secrets: [*token]
                """);
        assertThat(workflow.timeout()).isEqualTo(Duration.ofMinutes(30));
        assertThat(workflow.variables()).containsEntry("AGAIN", "debian:bookworm").containsEntry("COPY", "42");
        assertThat(workflow.steps()).extracting(Step::run).containsExactly("make all", "make all");
        assertThat(workflow.steps().get(0).timeout()).isEqualTo(Duration.ofMinutes(30));
        assertThat(workflow.steps()).extracting(Step::secrets).containsExactly(List.of("TOKEN"), List.of("TOKEN"));
    }

    @Test
    void anAliasToAScalarIsReportedWhereTheAliasIsWritten() {
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> parse("""
                name: &word hello
                steps:
                  - run: a
                    timeout: *word
                """));
        assertThat(e).isNotNull();
        assertThat(e.line()).isEqualTo(4);
        assertThat(e.column()).isEqualTo(14);
        assertThat(e.field()).isEqualTo("steps[0].timeout");
    }

    @Test
    void runnersMayBeNamedByDid() throws Exception {
        Workflow workflow = parse("runners: [ci-1, 'did:plc:ewvi7nxzyoun6zhxrhs64oiz', 'did:web:ci.example.com%3A8443:runners:a']\n"
                + "steps: [{run: x}]");
        assertThat(workflow.runners()).containsExactly("ci-1", "did:plc:ewvi7nxzyoun6zhxrhs64oiz",
                "did:web:ci.example.com%3A8443:runners:a");
    }

    @Test
    void collectionsOfTheResultCannotBeChanged() throws Exception {
        Workflow workflow = parse("variables: {A: b}\ncache: [c]\nrunners: [r]\nsteps: [{run: x, secrets: [S]}]");
        assertThatThrownBy(() -> workflow.variables().put("X", "y")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> workflow.cache().add("y")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> workflow.runners().add("y")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> workflow.steps().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> workflow.steps().get(0).secrets().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> workflow.on().branches().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void parseAllSortsByFileAndLeavesOutOtherFiles() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put(".knotless/workflows/z.yml", "steps: [{run: z}]");
        files.put(".knotless/workflows/README.md", "# not a workflow");
        files.put(".knotless/workflows/a.yaml", "steps: [{run: a}]");

        WorkflowSet set = new KnotlessDialect().parseAll(files);

        assertThat(set.hasErrors()).isFalse();
        assertThat(set.workflows()).extracting(Workflow::name).containsExactly("a", "z");
    }

    @Test
    void parseAllReportsEveryBrokenFileAndKeepsTheValidOnes() {
        Map<String, String> files = Map.of(
                ".knotless/workflows/b.yaml", "steps: [{run: b}]",
                ".knotless/workflows/c.yaml", "steps:\n  - name: no run\n",
                ".knotless/workflows/a.yaml", "stepz: []\n");

        WorkflowSet set = new KnotlessDialect().parseAll(files);

        assertThat(set.workflows()).extracting(Workflow::name).containsExactly("b");
        assertThat(set.errors()).extracting(Throwable::getMessage).containsExactly(
                ".knotless/workflows/a.yaml:1:1: field 'stepz': unknown field (did you mean 'steps'?); "
                        + "expected one of name, on, runners, image, timeout, resources, variables, cache, steps, reports, services, matrix, needs, artifacts",
                ".knotless/workflows/c.yaml:2:5: field 'steps[0].run': required: the script this step runs");
    }

    @Test
    void parseAllRefusesTwoWorkflowsWithOneName() {
        Map<String, String> files = Map.of(
                ".knotless/workflows/ci.yaml", "steps: [{run: a}]",
                ".knotless/workflows/ci.yml", "steps: [{run: b}]",
                ".knotless/workflows/other.yaml", "steps: [{run: c}]\nname: ci\n");

        WorkflowSet set = new KnotlessDialect().parseAll(files);

        assertThat(set.workflows()).extracting(Workflow::file).containsExactly(".knotless/workflows/ci.yaml");
        assertThat(set.errors()).extracting(Throwable::getMessage).containsExactly(
                ".knotless/workflows/ci.yml:1:1: field 'name': workflow name 'ci' is already used by "
                        + ".knotless/workflows/ci.yaml (set 'name' to tell them apart)",
                ".knotless/workflows/other.yaml:2:7: field 'name': workflow name 'ci' is already used by "
                        + ".knotless/workflows/ci.yaml");
    }

    @Test
    void theAnnotatedExampleOfTheReferenceParses() throws Exception {
        String doc = java.nio.file.Files.readString(java.nio.file.Path.of("../docs/reference/workflow.md"));
        int start = doc.indexOf("```yaml\n") + "```yaml\n".length();
        String example = doc.substring(start, doc.indexOf("```", start));

        Workflow workflow = new KnotlessDialect().parse(FILE, example);

        assertThat(workflow.name()).isEqualTo("Build and test");
        assertThat(workflow.on().matches(Event.PUSH, "release/1.0/hotfix")).isTrue();
        assertThat(workflow.on().matches(Event.PULL, "anything")).isTrue();
        assertThat(workflow.on().matchesPaths(Event.PUSH, new ChangedFiles.Known(List.of("src/generated/A.java", "pom.xml"))))
                .isTrue();
        assertThat(workflow.on().matchesPaths(Event.PUSH, new ChangedFiles.Known(List.of("src/generated/A.java", "docs/a.md"))))
                .isFalse();
        assertThat(workflow.on().filtersPaths(Event.PULL)).isFalse();
        assertThat(workflow.resources()).isEqualTo(new Resources(2000, 4L << 30));
        assertThat(workflow.variables()).containsEntry("RETRIES", "3");
        assertThat(workflow.steps()).extracting(Step::name).containsExactly("compile", "test", "style", "logs");
        assertThat(workflow.steps().get(1).secrets()).containsExactly("CODECOV_TOKEN");
        assertThat(workflow.steps().get(1).env()).containsEntry("LOG", "1");
        assertThat(workflow.steps().get(1).workingDirectory()).isEqualTo("app");
        assertThat(workflow.steps().get(1).retry()).isEqualTo(new Retry(2, java.util.Set.of(1, 137)));
        assertThat(workflow.steps().get(2).continueOnError()).isTrue();
        assertThat(workflow.steps().get(3).condition()).isEqualTo(StepCondition.FAILURE);
    }

    @Test
    void oursFillsThePlansLayoutWithWhatTheRunAlwaysDid() throws Exception {
        Workflow workflow = parse("steps: [{run: make}]");
        assertThat(workflow.workspace()).isEqualTo(Workspace.DEFAULT);
        assertThat(workflow.stepFiles()).isEqualTo(StepFiles.NONE);
        assertThat(workflow.prePost()).isEqualTo(PrePost.NONE);
        Step step = workflow.steps().getFirst();
        assertThat(step.shell()).isEqualTo(Shell.POSIX);
        assertThat(step.computedEnv()).isEmpty();
        assertThat(step.runtime()).isNull();
    }
}
