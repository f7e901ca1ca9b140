package dev.knotless.runner.run.step;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.StepOutcome;
import dev.knotless.runner.run.RunFixture;
import dev.knotless.runner.run.recovery.RunProgress;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.secrets.Secret;
import dev.knotless.testkit.FakeSession;
import dev.knotless.testkit.RecordingExecutor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The links a step goes through ({@link StepChain}), each seen doing its part. */
class StepLinksTest {

    static final String TOKEN = "s3cret-token-value";
    static final String WITH_SECRET = """
            steps:
              - {name: deploy, run: ship, secrets: [TOKEN]}
              - {name: after, run: 'true'}
            """;

    @TempDir Path dir;
    RunFixture fixture;
    FakeSession session;
    RecordingExecutor executor;

    @BeforeEach
    void setUp() {
        fixture = new RunFixture(dir);
        session = new FakeSession("fake-1");
        executor = new RecordingExecutor().startsWith(session);
    }

    @Test
    void theChainIsListedInItsOrder() throws Exception {
        try (ChainFixture chain = new ChainFixture(dir.resolve("chain"), WITH_SECRET, session)) {
            assertThat(chain.chain().order()).extracting(l -> l.getClass().getSimpleName()).containsExactly(
                    "AnnounceStep", "GrantNotice", "RefuseUnfitEnvironment", "RetryStep", "JournalStep", "PassedNotice", "FollowResumed",
                    "HandBack", "LeftoverCleanup", "MaskOutput", "ReadCommands");
        }
    }

    @Test
    void aGrantedSecretIsNoticedReachesOnlyItsStepAndIsMaskedInTheLog() {
        fixture.secrets.put("acme/app", new Secret("TOKEN", TOKEN));
        session.exits("deploy", 0, "using " + TOKEN + "\n");
        Check check = fixture.run(executor).execute(fixture.request(WITH_SECRET), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        String log = fixture.log(check);
        assertThat(log).contains("[knotless] secrets: granted TOKEN").contains("using ***").doesNotContain(TOKEN);
        assertThat(session.ran()).filteredOn(p -> p.name().equals("deploy")).singleElement()
                .satisfies(p -> assertThat(p.environment()).containsEntry("TOKEN", TOKEN));
        assertThat(session.ran()).filteredOn(p -> p.name().equals("after")).singleElement()
                .satisfies(p -> assertThat(p.environment()).doesNotContainKey("TOKEN"));
    }

    @Test
    void aStepWithSecretsHasTheProcessesItLeftKilledAndOnlyThose() {
        fixture.secrets.put("acme/app", new Secret("TOKEN", TOKEN));
        session.on("list processes", (payload, output, signal) -> write(output, "1:1\n7:300\n"));
        session.on("stop leftovers", (payload, output, signal) -> write(output, "42\n"));
        Check check = fixture.run(executor).execute(fixture.request(WITH_SECRET), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(session.ranNames()).containsExactly("list processes", "deploy", "stop leftovers", "after");
        assertThat(session.ran().get(2).command()).as("the processes there before are spared").endsWith("1:1", "7:300");
        assertThat(fixture.log(check)).contains("stopped 1 process(es) step 1 left running with its secrets: pid 42");
    }

    @Test
    void aStepWhoseProcessesCannotBeStoppedEndsTheRunAsAnErrorBeforeTheNextStep() {
        fixture.secrets.put("acme/app", new Secret("TOKEN", TOKEN));
        session.on("stop leftovers", (payload, output, signal) -> {
            byte[] b = "pid 9 refused STOP\n".getBytes(StandardCharsets.US_ASCII);
            output.write(OutputSink.Stream.STDERR, b, 0, b.length);
            return new StepOutcome.Exited(4);
        });
        Check check = fixture.run(executor).execute(fixture.request(WITH_SECRET), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(check.reason()).startsWith("step 'deploy': its secrets may outlive it: processes it started could not all be stopped")
                .endsWith("(exit 4: pid 9 refused STOP)");
        assertThat(session.ranNames()).doesNotContain("after");
    }

    @Test
    void aStepWhoseProcessesCannotBeListedIsNotRunWithItsSecrets() {
        fixture.secrets.put("acme/app", new Secret("TOKEN", TOKEN));
        session.exits("list processes", 2, "");
        Check check = fixture.run(executor).execute(fixture.request(WITH_SECRET), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(check.reason()).isEqualTo("step 'deploy': not run, so its secrets were given to no process: "
                + "the environment's processes could not be listed: exit 2");
        assertThat(session.ranNames()).containsExactly("list processes");
    }

    private static StepOutcome write(OutputSink output, String text) {
        byte[] b = text.getBytes(StandardCharsets.US_ASCII);
        output.write(OutputSink.Stream.STDOUT, b, 0, b.length);
        return new StepOutcome.Exited(0);
    }

    @Test
    void aStepWithoutSecretsIsNotLookedAfter() {
        fixture.run(executor).execute(fixture.request("steps: [{name: a, run: x}]\n"), new Cancellation());

        assertThat(session.ranNames()).containsExactly("a");
    }

    @Test
    void anEnvironmentNoProcessCouldGetEndsTheStepUnsent() {
        String huge = "x".repeat(dev.knotless.executor.Environment.MAX_ENTRY + 1);
        Check check = fixture.run(executor).execute(fixture.request(
                "variables: {BIG: " + huge + "}\nsteps: [{name: a, run: x}, {name: b, run: y}]\n"), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(check.steps().getFirst().status()).isEqualTo(StepStatus.ERROR);
        assertThat(check.reason()).startsWith("step 'a': ").contains("BIG");
        assertThat(session.ranNames()).isEmpty();
        assertThat(fixture.journaled).isEmpty();
    }

    @Test
    void theJournalLearnsOfEachStepSentAndEnded() {
        Check check = fixture.run(executor).execute(fixture.request("steps: [{name: a, run: x}, {name: b, run: y}]\n"),
                new Cancellation());

        assertThat(fixture.journaled).extracting(RunProgress::step, RunProgress::stepGoing, p -> p.ended().size())
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, true, 0), org.assertj.core.groups.Tuple.tuple(1, false, 1),
                        org.assertj.core.groups.Tuple.tuple(2, true, 1), org.assertj.core.groups.Tuple.tuple(2, false, 2));
        long logBytes = fixture.journaled.getLast().logBytes();
        assertThat(fixture.log(check).getBytes(StandardCharsets.UTF_8).length).isGreaterThanOrEqualTo((int) logBytes);
        assertThat(fixture.log(check).substring(0, (int) logBytes)).containsPattern("\\[knotless] step 2 'b' passed in \\d+ms\\n$");
    }

    @Test
    void aPassingStepIsNoticedWithItsTime() {
        Check check = fixture.run(executor).execute(fixture.request("steps: [{name: a, run: x}]\n"), new Cancellation());

        assertThat(fixture.log(check)).containsPattern("\\[knotless] step 1 'a' passed in \\d+ms");
    }
}
