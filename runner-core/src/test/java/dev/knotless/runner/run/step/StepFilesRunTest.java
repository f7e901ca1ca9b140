package dev.knotless.runner.run.step;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Annotation;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.StepPayload;
import dev.knotless.plan.Computed;
import dev.knotless.plan.StepFiles;
import dev.knotless.plan.Workspace;
import dev.knotless.runner.run.RunFixture;
import dev.knotless.runner.run.StepProtocolPlans;
import dev.knotless.runner.run.recovery.RunProgress;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.runner.run.step.protocol.HugeFileArchive;
import dev.knotless.runner.run.step.protocol.StepFileLayout;
import dev.knotless.secrets.Secret;
import dev.knotless.testkit.FakeSession;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run whose steps hand values back through files, over a fake session: the files are made in
 * each step's own shell, named in its environment and read back with one download, and what they
 * hold reaches the steps after and the check. Everything goes through the session's run and
 * download, so every executor does the same.
 */
class StepFilesRunTest {

    static final String TOKEN = "s3cret-token-value";
    static final String THREE = """
            steps:
              - {name: one, run: make, secrets: [TOKEN]}
              - {name: two, run: test, env: {LEVEL: step}}
              - {name: three, run: ship}
            """;

    @TempDir Path dir;
    RunFixture fixture;
    FakeSession session;

    @BeforeEach
    void setUp() {
        fixture = new RunFixture(dir);
        session = fixture.session;
        fixture.secrets.put("acme/app", new Secret("TOKEN", TOKEN));
    }

    private Check run(RunRequest request) {
        return fixture.run(fixture.executor).execute(request, new Cancellation());
    }

    private RunRequest handingBack(String yaml) {
        return StepProtocolPlans.handingBack(fixture.request(yaml), StepProtocolPlans.GITHUB);
    }

    private void files(int step, Map<String, String> files) {
        Map<String, byte[]> bytes = new LinkedHashMap<>();
        files.forEach((name, text) -> bytes.put(name, text.getBytes(StandardCharsets.UTF_8)));
        session.downloads(StepFileLayout.ROOT + "/" + step, RunFixture.tar(bytes));
    }

    @Test
    void eachStepMakesItsEmptyFilesInItsOwnShellAndIsToldWhereTheyAre() {
        Check check = run(handingBack(THREE));

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        StepPayload two = session.ran().stream().filter(p -> p.name().equals("two")).findFirst().orElseThrow();
        assertThat(two.command()).containsExactly("/bin/sh", "-c", "rm -rf /tmp/.knotless-files 2>/dev/null; mkdir -p"
                + " /tmp/.knotless-files/2 && : > /tmp/.knotless-files/2/output && : > /tmp/.knotless-files/2/env && :"
                + " > /tmp/.knotless-files/2/path && : > /tmp/.knotless-files/2/summary && : > /tmp/.knotless-files/2/state"
                + " || { printf '%s\\n' 'knotless: the step'\\''s files could not be made in /tmp/.knotless-files/2' >&2;"
                + " exit 1; }; exec /bin/sh -e /steps/2");
        assertThat(two.environment()).containsEntry("GITHUB_OUTPUT", "/tmp/.knotless-files/2/output")
                .containsEntry("GITHUB_ENV", "/tmp/.knotless-files/2/env").containsEntry("GITHUB_PATH", "/tmp/.knotless-files/2/path")
                .containsEntry("GITHUB_STEP_SUMMARY", "/tmp/.knotless-files/2/summary")
                .containsEntry("GITHUB_STATE", "/tmp/.knotless-files/2/state");
        assertThat(session.downloads()).as("one download of each step's files, none uploaded")
                .containsSubsequence("/tmp/.knotless-files/1", "/tmp/.knotless-files/2", "/tmp/.knotless-files/3")
                .filteredOn(d -> d.startsWith(StepFileLayout.ROOT)).hasSize(3);
        assertThat(session.uploads()).doesNotContainKey(StepFileLayout.ROOT);
    }

    @Test
    void eachStepIsGivenTheEventsFileWrittenInItsOwnShellBeforeItsCommand() {
        StepFiles withEvent = new StepFiles(StepProtocolPlans.GITHUB.variables(), true, "GITHUB_EVENT_PATH");
        Check check = run(StepProtocolPlans.handingBack(fixture.request(THREE), withEvent));

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        StepPayload three = session.ran().stream().filter(p -> p.name().equals("three")).findFirst().orElseThrow();
        assertThat(three.environment()).containsEntry("GITHUB_EVENT_PATH", "/tmp/.knotless-files/event.json");
        assertThat(three.command().getLast()).contains(" && : > /tmp/.knotless-files/3/state && printf '%s' "
                + "'{\"repository\":{\"full_name\":\"acme/app\",\"name\":\"app\",\"owner\":{\"login\":\"acme\"},"
                + "\"default_branch\":\"main\"}}' > /tmp/.knotless-files/event.json || {");
        assertThat(session.uploads()).as("written by the step's shell, not uploaded").doesNotContainKey(StepFileLayout.ROOT);
        assertThat(session.downloads()).as("nor read back with the step's files").doesNotContain(StepFileLayout.ROOT);
    }

    @Test
    void whatAStepHandsBackReachesTheStepsAfterItAndTheCheck() throws IOException {
        files(1, Map.of(
                "output", "version=1.2.3\ntoken<<EOF\n" + TOKEN + "\nEOF\n",
                "env", "LEVEL=from-env\nMULTI<<EOF\na\nb\nEOF\nNODE_OPTIONS=--inspect\n",
                "path", "/opt/one\n\n/opt/both\n",
                "summary", "# Report\nthe token is " + TOKEN + "\n",
                "state", "pid=42\n"));
        files(2, Map.of("path", "/opt/two\r\n/opt/both\n", "summary", "## Two\n"));
        RunRequest request = StepProtocolPlans.computing(handingBack(THREE), 3, Map.of(
                "VERSION", new Computed.StepOutput(1, "version"),
                "KEY", new Computed.Joined(List.of(new Computed.Text("v-"), new Computed.StepOutput(1, "version"))),
                "NONE", new Computed.StepOutput(2, "missing")));

        Check check = run(request);

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        Map<String, String> two = environment("two");
        assertThat(two).containsEntry("LEVEL", "step").as("a step's own env wins over what was handed back")
                .containsEntry("MULTI", "a\nb").doesNotContainKey("NODE_OPTIONS")
                .containsEntry("KNOTLESS_PATH_BEFORE", "/opt/both:/opt/one");
        assertThat(session.ran().stream().filter(p -> p.name().equals("two")).findFirst().orElseThrow().command().getLast())
                .contains("PATH=\"$KNOTLESS_PATH_BEFORE${PATH:+:$PATH}\"; export PATH; unset KNOTLESS_PATH_BEFORE; exec");
        Map<String, String> three = environment("three");
        assertThat(three).containsEntry("LEVEL", "from-env").containsEntry("KNOTLESS_PATH_BEFORE", "/opt/both:/opt/two:/opt/one")
                .containsEntry("VERSION", "1.2.3").containsEntry("KEY", "v-1.2.3").containsEntry("NONE", "");
        assertThat(environment("one")).doesNotContainKeys("LEVEL", "KNOTLESS_PATH_BEFORE");

        StepResult one = check.steps().getFirst();
        assertThat(one.outputs()).containsExactly(Map.entry("version", "1.2.3"), Map.entry("token", "***"));
        assertThat(one.annotations()).containsExactly(Annotation.of(Annotation.Kind.ERROR,
                "Can't store NODE_OPTIONS output parameter using '$GITHUB_ENV' command."));
        assertThat(check.summary()).isEqualTo(fixture.files.summaryPath(check.id()).toString());
        assertThat(Files.readString(Path.of(check.summary()))).isEqualTo("# Report\nthe token is ***\n## Two\n");
        assertThat(fixture.log(check)).doesNotContain(TOKEN);
    }

    @Test
    void aFailedStepsFilesAreReadToo() {
        session.exits("one", 1, "");
        files(1, Map.of("env", "AFTER_FAILURE=yes\n", "output", "o=1\n"));
        Check check = run(handingBack("""
                steps:
                  - {name: one, run: make}
                  - {name: cleanup, run: tidy, if: always()}
                """));

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(check.steps().getFirst().outputs()).containsEntry("o", "1");
        assertThat(environment("cleanup")).containsEntry("AFTER_FAILURE", "yes");
    }

    @Test
    void aFileOverItsBoundFailsTheStepWithOneLineAndReadsNoMoreThanItsHeader() {
        HugeFileArchive big = new HugeFileArchive("output", 2L << 30);
        session.downloadsFrom(StepFileLayout.ROOT + "/1", () -> big);

        Check check = run(handingBack(THREE));

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(check.reason()).isEqualTo("step 'one' handed back files that were refused: download of"
                + " /tmp/.knotless-files/1: GITHUB_OUTPUT is 2 GiB; a step hands back at most 1 MiB through one file");
        assertThat(check.steps().getFirst().exitCode()).as("its own exit code is kept").isZero();
        assertThat(big.contentRead()).isLessThan(64 * 1024);
        assertThat(session.ranNames()).doesNotContain("two");
    }

    @Test
    void aStepThatRemovedItsFilesHandsNothingBackAndPassesAsOnGithub() {
        session.downloadsFrom(StepFileLayout.ROOT + "/1", () -> new java.io.InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("no such directory in the run: /tmp/.knotless-files/1");
            }
        });

        Check check = run(handingBack(THREE));

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(fixture.log(check)).contains("[knotless] step 1 'one': its files were gone when it ended: nothing it"
                + " wrote to them was read back");
    }

    @Test
    void aDownloadThatFailsOtherwiseFailsTheStep() {
        session.downloadsFrom(StepFileLayout.ROOT + "/1", () -> new java.io.InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("connection reset");
            }
        });

        Check check = run(handingBack(THREE));

        assertThat(check.reason()).isEqualTo("step 'one' handed back files that could not be read: download of"
                + " /tmp/.knotless-files/1: connection reset");
    }

    @Test
    void anEntryEscapingTheDirectoryFailsTheStep() {
        session.downloads(StepFileLayout.ROOT + "/1", RunFixture.tar(Map.of("../../etc/cron.d/x", "* * * * * root sh\n"
                .getBytes(StandardCharsets.UTF_8))));

        Check check = run(handingBack(THREE));

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(check.reason()).contains("entry '../../etc/cron.d/x' would escape their directory");
    }

    @Test
    void aHeredocWithoutItsDelimiterFailsTheStepWithGithubsMessageAndKeepsWhatCameBefore() {
        files(1, Map.of("env", "BEFORE=kept\nBODY<<EOF\nnever ended\n"));
        Check check = run(handingBack("""
                steps:
                  - {name: one, run: make}
                  - {name: after, run: x, if: always()}
                """));

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        String why = "wrote a GITHUB_ENV that cannot be read: Invalid value. Matching delimiter not found 'EOF'";
        assertThat(check.reason()).isEqualTo("step 'one' " + why);
        assertThat(check.steps().getFirst().annotations()).extracting(Annotation::message)
                .containsExactly("Unable to process file command 'env' successfully.", why);
        assertThat(environment("after")).containsEntry("BEFORE", "kept").doesNotContainKey("BODY");
        assertThat(fixture.log(check)).contains("[knotless] step 1 'one': " + why);
    }

    @Test
    void aHugeNumberOfLinesFailsTheStepAtTheBound() {
        files(1, Map.of("output", "k=v\n".repeat(200_000)));
        Check check = run(handingBack(THREE));

        assertThat(check.reason()).isEqualTo("step 'one' wrote a GITHUB_OUTPUT that cannot be read: Invalid format: more than"
                + " 1000 names in one file");
    }

    @Test
    void aStepThatMayContinueOnErrorGoesOnWhenItsFilesAreRefused() {
        files(1, Map.of("env", "not a pair\n"));
        Check check = run(handingBack("""
                steps:
                  - {name: one, run: make, continue-on-error: true}
                  - {name: two, run: x}
                """));

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(check.steps().getFirst().continuedOnError()).isTrue();
        assertThat(check.steps().getFirst().reason()).isEqualTo("wrote a GITHUB_ENV that cannot be read: Invalid format"
                + " 'not a pair'");
        assertThat(session.ranNames()).contains("two");
    }

    @Test
    void aVariableNoProcessCanBeGivenFailsTheStepAndAKnotlessOneIsRefused() {
        files(1, Map.of("env", "KNOTLESS_RUN_ID=forged\nmy-var=1\n"));
        Check check = run(handingBack(THREE));

        assertThat(check.reason()).isEqualTo("step 'one' set 'my-var' with GITHUB_ENV, which is not a name a process can be"
                + " given (letters, digits and _, not starting with a digit)");
        assertThat(check.steps().getFirst().annotations()).extracting(Annotation::message).first()
                .isEqualTo("Can't store KNOTLESS_RUN_ID output parameter using '$GITHUB_ENV' command.");
    }

    @Test
    void aWorkspaceElsewhereKeepsTheFilesOutsideItAndEntersItAfterMakingThem() {
        RunRequest request = StepProtocolPlans.handingBack(fixture.request(THREE), StepProtocolPlans.GITHUB,
                new Workspace("/home/runner/work/app/app", "/home/runner"));
        run(request);

        String command = session.ran().stream().filter(p -> p.name().equals("two")).findFirst().orElseThrow().command().getLast();
        assertThat(command).startsWith("rm -rf /tmp/.knotless-files 2>/dev/null; mkdir -p /tmp/.knotless-files/2")
                .contains("exit 1; }; cd -- /home/runner/work/app/app 2>/dev/null").endsWith("exec /bin/sh -e /steps/2");
        assertThat(StepFileLayout.ROOT).doesNotStartWith("/home/runner/work/app/app");
    }

    @Test
    void oursHandsNothingBackAndItsStepsRunAsTheyAlwaysDid() {
        Check check = fixture.execute(THREE, new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(session.ran().stream().filter(p -> p.name().equals("two")).findFirst().orElseThrow().command())
                .containsExactly("/bin/sh", "-e", "/steps/2");
        assertThat(environment("two")).doesNotContainKey("GITHUB_OUTPUT");
        assertThat(session.downloads()).noneMatch(d -> d.startsWith(StepFileLayout.ROOT));
        assertThat(check.summary()).isNull();
    }

    @Test
    void filesAloneMakeNoCommandReadAndCommandsAloneMakeNoFile() {
        session.exits("one", 0, "::add-mask::not-read-here\n");
        Check files = run(StepProtocolPlans.handingBack(fixture.request(THREE),
                new StepFiles(Map.of(StepFiles.Purpose.OUTPUTS, "OUT"))));
        assertThat(fixture.log(files)).contains("::add-mask::not-read-here");
        assertThat(environment("one")).containsEntry("OUT", "/tmp/.knotless-files/1/output").doesNotContainKey("GITHUB_ENV");

        RunFixture second = new RunFixture(dir.resolve("second"));
        second.session.exits("one", 0, "::add-mask::read-here\n");
        Check commands = second.run(second.executor).execute(StepProtocolPlans.handingBack(second.request(THREE),
                new StepFiles(Map.of(), true)), new Cancellation());
        assertThat(second.log(commands)).contains("::add-mask::***").doesNotContain("read-here");
        assertThat(second.session.ran().getFirst().command()).as("no file to make: the plain command")
                .containsExactly("/bin/sh", "-e", "/steps/1");
        assertThat(second.session.downloads()).noneMatch(d -> d.startsWith(StepFileLayout.ROOT));
    }

    @Test
    void aRunWhoseStepsHandValuesBackIsNotFollowedAfterARestart() {
        RunRequest request = handingBack(THREE);
        RunProgress progress = new RunProgress(2, 0, 0, 0, List.of(new StepResult("one", StepStatus.SUCCESS, 0, 5, null)));

        Check check = fixture.run(fixture.executor).resume(request, Instant.now(), progress, session, new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(check.reason()).isEqualTo("runner restarted: what this run's steps handed back (their variables, outputs"
                + " and masks) was kept only by the runner, so the run cannot go on");
        assertThat(session.followed()).isEmpty();
        assertThat(session.ranNames()).isEmpty();
    }

    private Map<String, String> environment(String step) {
        return session.ran().stream().filter(p -> p.name().equals(step)).findFirst().orElseThrow().environment();
    }
}
