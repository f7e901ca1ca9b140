package dev.knotless.runner.run.step;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Annotation;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.StepOutcome;
import dev.knotless.plan.Computed;
import dev.knotless.runner.run.RunFixture;
import dev.knotless.runner.run.StepProtocolPlans;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.runner.run.step.protocol.StepFileLayout;
import dev.knotless.secrets.Secret;
import dev.knotless.testkit.FakeSession;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workflow commands in a whole run over a fake session: read from a step's output before the
 * log's masker, so that a value a step masks is hidden from its own line on, in every later step,
 * and in what the check shows.
 */
class WorkflowCommandsRunTest {

    static final String TOKEN = "s3cret-token-value";
    static final String DYNAMIC = "dyn-secret-123";
    static final String TWO = """
            steps:
              - {name: one, run: make, secrets: [TOKEN]}
              - {name: two, run: test, if: always()}
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

    private Check run() {
        return run(StepProtocolPlans.handingBack(fixture.request(TWO), StepProtocolPlans.GITHUB));
    }

    private Check run(RunRequest request) {
        return fixture.run(fixture.executor).execute(request, new Cancellation());
    }

    @Test
    void aMaskedValueIsHiddenFromItsOwnLineOnInEveryLaterStepAndWhatTheCheckShows() throws IOException {
        session.on("one", (payload, output, signal) -> {
            write(output, OutputSink.Stream.STDOUT, "printed before it was a secret: " + DYNAMIC + "\n");
            write(output, OutputSink.Stream.STDOUT, "::add-mask::dyn-se");
            write(output, OutputSink.Stream.STDOUT, "cret-123\nafter: " + DYNAMIC + "\n");
            write(output, OutputSink.Stream.STDERR, "::error title=" + DYNAMIC + "::failed with " + DYNAMIC + " and " + TOKEN + "\n");
            return new StepOutcome.Exited(0);
        });
        session.exits("two", 0, "later step: " + DYNAMIC + "\n");
        session.downloads(StepFileLayout.ROOT + "/1", RunFixture.tar(Map.of(
                "output", ("OUT=" + DYNAMIC + "\n").getBytes(StandardCharsets.UTF_8),
                "summary", ("# " + DYNAMIC + "\n").getBytes(StandardCharsets.UTF_8))));

        Check check = run(StepProtocolPlans.computing(StepProtocolPlans.handingBack(fixture.request(TWO),
                StepProtocolPlans.GITHUB), 2, Map.of("OUT_OF_ONE", new Computed.StepOutput(1, "OUT"))));

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        String log = fixture.log(check);
        assertThat(log).as("what was printed before the mask was asked for is shown, as on GitHub")
                .contains("printed before it was a secret: " + DYNAMIC + "\n")
                .contains("::add-mask::***\nafter: ***\n").contains("later step: ***\n")
                .contains("::error title=***::failed with *** and ***\n").doesNotContain(TOKEN);
        assertThat(log.indexOf(DYNAMIC)).isEqualTo(log.lastIndexOf(DYNAMIC));
        assertThat(check.steps().getFirst().outputs()).containsExactly(Map.entry("OUT", "***"));
        assertThat(check.steps().getFirst().annotations()).containsExactly(
                new Annotation(Annotation.Kind.ERROR, "failed with *** and ***", null, null, null, null, null, "***"));
        assertThat(Files.readString(Path.of(check.summary()))).isEqualTo("# ***\n");
        assertThat(session.ran().stream().filter(p -> p.name().equals("two")).findFirst().orElseThrow().environment())
                .as("later steps read outputs as they were handed back, unmasked").containsEntry("OUT_OF_ONE", DYNAMIC);
    }

    @Test
    void aValueWithControlCharactersIsBlankedOnItsLineSinceTheLogTurnsThemIntoSpacesBeforeTheMasker() {
        session.exits("one", 0, "::add-mask::tab\u001b]0;title\u0007end\n");

        Check check = run();

        assertThat(fixture.log(check)).contains("::add-mask::" + "*".repeat("tab\u001b]0;title\u0007end".length()) + "\n")
                .doesNotContain("title");
    }

    @Test
    void aDisabledCommandFailsTheStepWithGithubsMessagesAndTheRunGoesOnToItsAlwaysStep() {
        session.exits("one", 0, "::set-env name=A::1\n");

        Check check = run();

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(check.reason()).startsWith("step 'one' The `set-env` command is disabled.");
        assertThat(check.steps().getFirst().exitCode()).isZero();
        assertThat(check.steps().getFirst().annotations()).extracting(Annotation::message).first()
                .isEqualTo("Unable to process command '::set-env name=A::1' successfully.");
        assertThat(fixture.log(check)).contains("[knotless] step 1 'one': The `set-env` command is disabled.");
        assertThat(session.ranNames()).contains("two");
    }

    private static void write(OutputSink output, OutputSink.Stream stream, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        output.write(stream, bytes, 0, bytes.length);
    }
}
