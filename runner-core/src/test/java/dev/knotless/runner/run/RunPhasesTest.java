package dev.knotless.runner.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.checks.Output;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Trust;
import dev.knotless.executor.UntrustedNetwork;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.record.RunMasking;
import dev.knotless.runner.run.recovery.JournalQueue;
import dev.knotless.runner.run.recovery.RunJournal;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.testkit.FakeSession;
import dev.knotless.testkit.RecordingExecutor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each phase of a run ({@link Run#phases}) on a {@link FakeSession}. */
class RunPhasesTest {

    static final String TWO_STEPS = """
            steps:
              - {name: build, run: make}
              - {name: test, run: make test}
            """;
    static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};

    @TempDir Path dir;
    RunFixture fixture;
    FakeSession session;
    RecordingExecutor executor;

    @BeforeEach
    void setUp() {
        fixture = new RunFixture(dir);
        session = new FakeSession("fake-1");
        executor = new RecordingExecutor("fake").startsWith(session);
    }

    @Test
    void thePhasesAreInTheirOrder() {
        List<Phase> phases;
        try (JournalQueue journal = new JournalQueue("run-1", RunJournal.NONE, JournalQueue.PATIENCE)) {
            phases = fixture.run(executor).phases(fixture.request(TWO_STEPS), RunMasking.NONE, List.of(), null, journal);
        }
        assertThat(phases).extracting(p -> p.getClass().getSimpleName()).containsExactly(
                "StartEnvironment", "UploadCheckout", "RestoreCaches", "RestoreArtifacts", "UploadSteps", "BringRuntimes", "RunSteps",
                "ServiceLogs", "SaveCaches", "SaveArtifacts", "CollectOutputs", "CollectReports");
    }

    @Test
    void startEnvironmentAsksForTheRequestsEnvironmentAndClosesItAfter() {
        RunRequest request = fixture.request(TWO_STEPS);
        Check check = fixture.run(executor).execute(request, new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        RunSpec spec = executor.started().getFirst();
        assertThat(spec.runnerId()).isEqualTo("runner-1");
        assertThat(spec.runId()).isEqualTo(request.runId());
        assertThat(spec.image()).isEqualTo("local/test:1");
        assertThat(spec.trust()).isEqualTo(Trust.TRUSTED);
        assertThat(spec.labels()).containsEntry("dev.knotless.workflow", "ci");
        assertThat(spec.killGrace()).isEqualTo(RunLimits.DEFAULT.killGrace());
        assertThat(session.isClosed()).isTrue();
        assertThat(fixture.log(check)).contains("[knotless] environment fake-1 is ready");
    }

    @Test
    void anEnvironmentThatCannotBeMadeIsAnErrorAndNothingElseRuns() {
        executor.refuses(new Failure(Failure.Kind.IMAGE, "image \"local/test:1\" not found"));
        Check check = fixture.run(executor).execute(fixture.request("image: local/test:1\n" + TWO_STEPS), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(check.reason()).isEqualTo("image \"local/test:1\" not found");
        assertThat(check.steps()).isEmpty();
        assertThat(session.ranNames()).isEmpty();
    }

    @Test
    void aDefaultedImageThatCannotBePulledSaysItWasTheDefaultAndHowToChooseAnother() {
        executor.refuses(new Failure(Failure.Kind.IMAGE, "image 'local/test:1' cannot be pulled: ErrImagePull: no registry"));
        Check check = fixture.run(executor).execute(fixture.request(TWO_STEPS), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(check.reason()).isEqualTo("image \"local/test:1\" (the default: the workflow names none) cannot be pulled:"
                + " ErrImagePull: no registry; set image: in the workflow or --image");
        assertThat(session.ranNames()).isEmpty();
    }

    @Test
    void aDefaultedImageReasonInAnotherShapeIsKeptWholeBehindTheDefaultsName() {
        executor.refuses(new Failure(Failure.Kind.IMAGE, "no such manifest"));
        Check check = fixture.run(executor).execute(fixture.request(TWO_STEPS), new Cancellation());

        assertThat(check.reason()).isEqualTo("image \"local/test:1\" (the default: the workflow names none): no such manifest;"
                + " set image: in the workflow or --image");
    }

    @Test
    void anotherFailureOfADefaultedImageRunIsNotBlamedOnTheImage() {
        executor.refuses(new Failure(Failure.Kind.UNSCHEDULABLE, "pod unschedulable"));
        Check check = fixture.run(executor).execute(fixture.request(TWO_STEPS), new Cancellation());

        assertThat(check.reason()).isEqualTo("pod unschedulable");
    }

    @Test
    void uploadCheckoutStreamsTheTreeIntoWork() {
        fixture.run(executor).execute(fixture.request(TWO_STEPS), new Cancellation());

        assertThat(session.uploads().get(RunLayout.WORK)).isEqualTo(RunFixture.CHECKOUT);
    }

    @Test
    void aCheckoutThatCannotBeUploadedIsAnErrorAndNoStepRuns() {
        session.failsUpload(RunLayout.WORK, new Failure(Failure.Kind.LOST, "container gone"));
        Check check = fixture.run(executor).execute(fixture.request(TWO_STEPS), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(check.reason()).isEqualTo("checkout failed: container gone");
        assertThat(session.ranNames()).isEmpty();
        assertThat(session.isClosed()).isTrue();
    }

    @Test
    void uploadStepsWritesEachScriptUnderItsNumber() {
        fixture.run(executor).execute(fixture.request(TWO_STEPS), new Cancellation());

        assertThat(RunFixture.untar(session.uploads().get(RunLayout.STEPS))).containsExactly(
                Map.entry("1", "make"), Map.entry("2", "make test"));
    }

    @Test
    void stepsRunInOrderAndTheFirstFailureSkipsTheRest() {
        session.exits("build", 3, "compiling\n");
        Check check = fixture.run(executor).execute(fixture.request(TWO_STEPS + "  - {name: deploy, run: ship}\n"),
                new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(check.reason()).isEqualTo("step 'build' exited with 3");
        assertThat(RunFixture.names(check.steps())).containsExactly("build:failure", "test:skipped", "deploy:skipped");
        assertThat(check.steps().getFirst().exitCode()).isEqualTo(3);
        assertThat(session.ranNames()).containsExactly("build");
        assertThat(fixture.log(check)).contains("[knotless] step 1 'build'\ncompiling\n");
    }

    @Test
    void restoreCachesIsColdFirstThenRestoresWhatAPassingPushSaved() {
        String yaml = "cache: [deps]\n" + TWO_STEPS;
        String path = RunLayout.WORK + "/deps";
        session.downloads(path, RunFixture.tar(Map.of("lib.jar", "jar bytes".getBytes(StandardCharsets.UTF_8))));
        Check first = fixture.run(executor).execute(fixture.request(yaml), new Cancellation());
        assertThat(fixture.log(first)).contains("cache " + path + ": cold (nothing stored yet)").contains("saved for refs/heads/main");

        FakeSession second = new FakeSession("fake-2");
        Check again = fixture.run(new RecordingExecutor().startsWith(second)).execute(fixture.request(yaml), new Cancellation());

        assertThat(fixture.log(again)).contains("cache " + path + ": restored from refs/heads/main");
        assertThat(RunFixture.untar(second.uploads().get(path))).containsEntry("lib.jar", "jar bytes");
    }

    @Test
    void anUntrustedRunsStartNoticeSaysWhatTheExecutorEnforcesAndATrustedOneSaysNothingOfIt() {
        executor.declares(new UntrustedNetwork(UntrustedNetwork.Enforcement.POLICY, "policy objects, maybe enforced"));
        Check untrusted = fixture.run(executor).execute(fixture.request(TWO_STEPS, Event.PULL, Trust.UNTRUSTED, "refs/pull/8/head"),
                new Cancellation());
        Check trusted = fixture.run(executor).execute(fixture.request(TWO_STEPS, Event.PULL, Trust.TRUSTED, "refs/pull/7/head"),
                new Cancellation());

        assertThat(fixture.log(untrusted)).containsPattern("starting \\S+ on \\S+ \\(untrusted: policy objects, maybe enforced\\)\\n")
                .doesNotContain("isolated, no network");
        assertThat(fixture.log(trusted)).containsPattern("starting \\S+ on \\S+\\n").doesNotContain("untrusted");
    }

    @Test
    void saveCachesKeepsAPullsUnderItsOwnRefAndNeverSavesAnUntrustedRun() {
        String yaml = "cache: [deps]\n" + TWO_STEPS;
        String path = RunLayout.WORK + "/deps";
        session.downloads(path, RunFixture.tar(Map.of("a", new byte[] {1})));
        Check pull = fixture.run(executor).execute(fixture.request(yaml, Event.PULL, Trust.TRUSTED, "refs/pull/7/head"),
                new Cancellation());
        assertThat(fixture.log(pull)).contains("saved for refs/pull/7/head");

        Check untrusted = fixture.run(executor).execute(fixture.request(yaml, Event.PULL, Trust.UNTRUSTED, "refs/pull/8/head"),
                new Cancellation());
        assertThat(fixture.log(untrusted)).contains("caches not saved: untrusted runs never write caches back");
        assertThat(session.downloads()).containsExactly(path, RunLayout.OUTPUTS, RunLayout.OUTPUTS);
    }

    @Test
    void collectOutputsRecordsEachFileWithTheMediaTypeItsBytesShowEvenAfterAFailingStep() {
        session.exits("test", 1, "");
        session.downloads(RunLayout.OUTPUTS, RunFixture.tar(Map.of("shot.png", PNG)));
        Check check = fixture.run(executor).execute(fixture.request(TWO_STEPS), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(check.outputs()).extracting(Output::name, Output::mediaType, Output::bytes)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("shot.png", "image/png", (long) PNG.length));
        assertThat(Path.of(check.outputs().getFirst().path())).hasBinaryContent(PNG);
    }

    @Test
    void theRunningCheckIsSavedBeforeTheEnvironmentStarts() throws Exception {
        RunRequest request = fixture.request(TWO_STEPS);
        session.on("build", (payload, output, signal) -> {
            try {
                assertThat(fixture.files.load(request.runId()).orElseThrow().status()).isEqualTo(CheckStatus.RUNNING);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return new dev.knotless.executor.StepOutcome.Exited(0);
        });
        Check check = fixture.run(executor).execute(request, new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(fixture.files.load(request.runId())).contains(check);
    }
}
