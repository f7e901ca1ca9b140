package dev.knotless.runner.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.StepPayload;
import dev.knotless.plan.BroughtRuntime;
import dev.knotless.plan.Computed;
import dev.knotless.plan.PrePost;
import dev.knotless.plan.Shell;
import dev.knotless.plan.Step;
import dev.knotless.plan.StepFiles;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.Workspace;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.runner.run.transfer.CachePlan;
import dev.knotless.testkit.FakeSession;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run takes the workspace, home and shell from the plan, and refuses what the plan may hold
 * that it does not carry out yet. No dialect writes these but ours' defaults, so the plans here are
 * built by hand, as another dialect's front-end would build them.
 */
class PlanShapeTest {

    private static final String YAML = """
            cache: [deps]
            steps:
              - {name: one, run: 'make'}
              - {name: two, run: 'make test', working-directory: app}
            """;

    @TempDir Path dir;
    RunFixture fixture;
    FakeSession session;

    @BeforeEach
    void setUp() {
        fixture = new RunFixture(dir);
        session = fixture.session;
    }

    @Test
    void oursRunsInWorkWithTheImagesHomeAndPosixShell() {
        Check check = fixture.execute(YAML, new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(session.uploads()).containsKey(RunLayout.WORK);
        assertThat(session.ran().get(0).command()).containsExactly("/bin/sh", "-e", "/steps/1");
        assertThat(session.ran().get(0).environment()).doesNotContainKey("HOME");
        assertThat(RunFixture.untar(session.uploads().get(RunLayout.STEPS))).containsEntry("1", "make");
    }

    @Test
    void aWorkspaceElsewhereIsWhereTheCheckoutGoesAndEveryStepStartsWithItsHome() {
        RunRequest request = reshaped(w -> with(w, new Workspace("/home/runner/work/app", "/home/runner"), w.steps()));

        Check check = fixture.run(fixture.executor).execute(request, new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(session.uploads()).containsKey("/home/runner/work/app").doesNotContainKey(RunLayout.WORK);
        StepPayload one = session.ran().get(0);
        StepPayload two = session.ran().get(1);
        assertThat(one.command()).containsExactly("/bin/sh", "-c", "cd -- /home/runner/work/app 2>/dev/null || { printf '%s\\n' "
                + "'knotless: the workspace /home/runner/work/app is not a directory' >&2; exit 1; }; exec /bin/sh -e /steps/1");
        assertThat(two.command()).containsExactly("/bin/sh", "-c", "cd -- /home/runner/work/app/app 2>/dev/null || { printf "
                + "'%s\\n' 'knotless: working-directory app is not a directory in /home/runner/work/app' >&2; exit 1; }; "
                + "exec /bin/sh -e /steps/2");
        assertThat(one.environment()).containsEntry("HOME", "/home/runner");
        assertThat(CachePlan.of(request).entries()).extracting(CachePlan.Entry::path).containsExactly("/home/runner/work/app/deps");
    }

    @Test
    void aStepsShellWritesItsFileAndRunsIt() {
        Shell bash = new Shell(List.of("bash", "--noprofile", "--norc", "-eo", "pipefail", Shell.SCRIPT), "set -x\n", "\n# end\n");
        RunRequest request = reshaped(w -> with(w, w.workspace(), w.steps().stream().map(s -> withShell(s, bash)).toList()));

        Check check = fixture.run(fixture.executor).execute(request, new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(session.ran().get(0).command()).containsExactly("bash", "--noprofile", "--norc", "-eo", "pipefail", "/steps/1");
        assertThat(session.ran().get(1).command().getLast()).endsWith("; exec bash --noprofile --norc -eo pipefail /steps/2");
        assertThat(RunFixture.untar(session.uploads().get(RunLayout.STEPS))).containsEntry("1", "set -x\nmake\n# end\n");
    }

    @Test
    void whatThisRunnerDoesNotCarryOutYetIsRefusedBeforeAnyStep() {
        Step first = fixture.request(YAML).workflow().steps().getFirst();
        Step computing = new Step(first.name(), first.run(), null, List.of(), Map.of(), null, null, false, first.condition(),
                Shell.POSIX, Map.of("KEY", new Computed.Joined(List.of(new Computed.Text("npm-"),
                        new Computed.FilesHash(List.of("package-lock.json"))))), new BroughtRuntime("node", "20"));
        RunRequest request = reshaped(w -> new Workflow(w.name(), w.file(), w.on(), w.runners(), w.image(), w.timeout(),
                w.resources(), w.variables(), w.cache(), List.of(computing), w.reports(), w.services(), w.needs(), w.artifacts(),
                w.cell(), w.workspace(), new StepFiles(Map.of(StepFiles.Purpose.OUTPUTS, "GITHUB_OUTPUT")),
                new PrePost(List.of(), List.of(first))));

        Check check = fixture.run(fixture.executor).execute(request, new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(check.reason()).isEqualTo("this runner does not carry out steps before or after its own (pre, post) yet");
        assertThat(session.ran()).isEmpty();
        assertThat(session.uploads()).doesNotContainKey(RunLayout.STEPS);
    }

    @Test
    void aRuntimeTheRunnerDoesNotHaveEndsTheRunBeforeAnyStepSayingHowToGiveIt() {
        Step first = fixture.request(YAML).workflow().steps().getFirst();
        Step js = new Step("Run ./.github/actions/js", "exec node a.js", null, List.of(), Map.of(), null, null, false,
                first.condition(), Shell.POSIX, Map.of(), new BroughtRuntime("node", "24"));
        RunRequest request = reshaped(w -> with(w, w.workspace(), List.of(first, js)));

        Check check = fixture.run(fixture.executor).execute(request, new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(check.reason()).isEqualTo("step 'Run ./.github/actions/js' runs a JavaScript action, which runs on the"
                + " runner's own node, and this runner has none: start it with --actions-node PATH (a Node 20 or later on"
                + " the runner host)");
        assertThat(session.ran()).isEmpty();
    }

    private RunRequest reshaped(UnaryOperator<Workflow> change) {
        RunRequest request = fixture.request(YAML);
        return request.withWorkflow(change.apply(request.workflow()));
    }

    private static Workflow with(Workflow w, Workspace workspace, List<Step> steps) {
        return new Workflow(w.name(), w.file(), w.on(), w.runners(), w.image(), w.timeout(), w.resources(), w.variables(),
                w.cache(), steps, w.reports(), w.services(), w.needs(), w.artifacts(), w.cell(), workspace, w.stepFiles(),
                w.prePost());
    }

    private static Step withShell(Step s, Shell shell) {
        return new Step(s.name(), s.run(), s.timeout(), s.secrets(), s.env(), s.workingDirectory(), s.retry(),
                s.continueOnError(), s.condition(), shell, s.computedEnv(), s.runtime());
    }
}
