package dev.knotless.runner.run.record;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckJson;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepResult;
import dev.knotless.executor.Failure;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.StepOutcome;
import dev.knotless.plan.Step;
import dev.knotless.runner.run.Run;
import dev.knotless.runner.run.RunFixture;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.secrets.Secret;
import dev.knotless.tar.TarStreams;
import dev.knotless.testkit.FakeSession;
import dev.knotless.testkit.RecordingExecutor;
import dev.knotless.testkit.SecretScan;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Everything the runner writes about a run passes the run's masker, not only step output: step
 * names from the workflow, output file names, notices and reasons that quote a file or a command
 * line. Scanned in every sink: the log, the check file and the returned check, what listeners
 * (console, live API and its event stream) are told, the journal, and every file under the state
 * directory.
 */
class RunMaskingTest {

    static final String VALUE = "tok-7Qx9-hunter2-Zulu";
    static final String B64 = Base64.getEncoder().encodeToString(VALUE.getBytes(StandardCharsets.UTF_8));

    @TempDir Path dir;
    RunFixture fixture;
    FakeSession session;
    RecordingExecutor executor;
    final StringBuilder told = new StringBuilder();
    final SecretScan scan = SecretScan.of(List.of(VALUE));

    /** Writes down, as text, everything a listener is told: what a console or the live API would show. */
    final RunListener recording = new RunListener() {
        @Override
        public void runStarted(RunRequest run) {
            told.append(run.workflow().name()).append(' ').append(run.repo()).append(' ').append(run.ref()).append('\n');
            run.workflow().steps().stream().map(Step::name).forEach(n -> told.append("step ").append(n).append('\n'));
        }

        @Override
        public void notice(RunRequest run, String line) {
            told.append(line).append('\n');
        }

        @Override
        public void stepStarted(RunRequest run, int number, String name) {
            told.append(number).append(' ').append(name).append('\n');
        }

        @Override
        public void stepOutput(RunRequest run, int number, OutputSink.Stream stream, byte[] buffer, int offset, int length) {
            told.append(new String(buffer, offset, length, StandardCharsets.UTF_8));
        }

        @Override
        public void stepFinished(RunRequest run, int number, StepResult result) {
            told.append(result).append('\n');
        }

        @Override
        public void runFinished(RunRequest run, Check check) {
            told.append(new CheckJson().line(check)).append('\n');
        }
    };

    @BeforeEach
    void setUp() {
        fixture = new RunFixture(dir);
        fixture.secrets.put("acme/app", new Secret("TOKEN", VALUE));
        session = new FakeSession("fake-1");
        executor = new RecordingExecutor().startsWith(session);
    }

    Run run() {
        return new Run(executor, CheckRecorder.filesOnly(fixture.files), fixture.secrets, fixture.caches, recording,
                fixture.limits, fixture.journal, fixture.clock);
    }

    void assertNoValueAnywhere(Check check) throws IOException {
        scan.assertNoneIn("the log", fixture.log(check));
        scan.assertNoneIn("the returned check", new CheckJson().line(check));
        scan.assertNoneIn("the check file", new CheckJson().line(fixture.files.load(check.id()).orElseThrow()));
        scan.assertNoneIn("what listeners were told", told.toString());
        scan.assertNoneIn("the journal", fixture.journaled.toString());
        scan.assertNoneIn(dir);
    }

    /** A forge shows a run as it goes: after each step, the running check with the steps so far, masked. */
    @Test
    void theChecksARunPublishesAsItGoesHoldItsStepsSoFarMasked() throws IOException {
        List<Check> published = new java.util.concurrent.CopyOnWriteArrayList<>();
        dev.knotless.forge.CheckPublisher capture = new dev.knotless.forge.CheckPublisher() {
            @Override
            public void publish(Check c) {
                published.add(c);
            }

            @Override
            public void started(Check c) {
                published.add(c);
            }
        };
        Run run = new Run(executor, new CheckRecorder(fixture.files, CheckRows.NONE, capture, line -> {}), fixture.secrets,
                fixture.caches, recording, fixture.limits, fixture.journal, fixture.clock);
        String yaml = """
                steps:
                  - {name: 'login as %s', run: login, secrets: [TOKEN]}
                  - {name: 'check', run: check}
                """.formatted(VALUE);

        Check check = run.execute(fixture.request(yaml), new Cancellation());

        assertThat(check.status()).as(check.reason()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(published).extracting(c -> c.steps().stream().map(StepResult::name).toList()).containsExactly(
                List.of(), List.of("login as ***"), List.of("login as ***", "check"), List.of("login as ***", "check"));
        assertThat(published).extracting(Check::status)
                .containsExactly(CheckStatus.RUNNING, CheckStatus.RUNNING, CheckStatus.RUNNING, CheckStatus.SUCCESS);
        scan.assertNoneIn("what was published", published.toString());
    }

    @Test
    void stepNamesAndOutputFileNamesThatHoldAGrantedValueAreMaskedEverywhere() throws IOException {
        String yaml = """
                steps:
                  - {name: 'login as %s', run: login, secrets: [TOKEN]}
                  - {name: 'check %s', run: check}
                """.formatted(VALUE, B64);
        session.downloads(RunLayout.OUTPUTS, tar(Map.of("report-" + VALUE + ".txt", "fine", "plain.txt", "fine",
                "by-" + B64 + "/log.txt", "fine"), Map.of()));

        Check check = run().execute(fixture.request(yaml), new Cancellation());

        assertThat(check.status()).as(check.reason()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(check.steps()).extracting(StepResult::name).containsExactly("login as ***", "check ***");
        assertThat(check.outputs()).extracting(o -> o.name()).containsExactlyInAnyOrder("report-***.txt", "plain.txt",
                "by-***/log.txt");
        assertThat(check.outputs()).allSatisfy(o -> assertThat(Path.of(o.path())).exists().hasContent("fine"));
        assertThat(fixture.log(check)).contains("[knotless] step 1 'login as ***'").contains("outputs: ")
                .contains("report-***.txt");
        assertThat(told.toString()).contains("step login as ***").contains("1 login as ***");
        assertNoValueAnywhere(check);
    }

    @Test
    void reasonsAndNoticesThatQuoteAGrantedValueAreMaskedEverywhere() throws IOException {
        String yaml = """
                steps:
                  - {name: deploy, run: deploy, secrets: [TOKEN]}
                """;
        session.on("deploy", (payload, output, signal) -> new StepOutcome.Failed(new Failure(Failure.Kind.INFRASTRUCTURE,
                "exec of [sh, -c, curl -u " + VALUE + " https://example.invalid] failed")));
        session.downloads(RunLayout.OUTPUTS, tar(Map.of(), Map.of("key-" + VALUE, "/etc/" + B64)));

        Check check = run().execute(fixture.request(yaml), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(check.reason()).isEqualTo("step 'deploy': exec of [sh, -c, curl -u *** https://example.invalid] failed");
        assertThat(fixture.log(check)).contains("outputs refused: ").contains("key-***");
        assertNoValueAnywhere(check);
    }

    /** A tar of regular files (name to text) and symlinks (name to target). */
    static byte[] tar(Map<String, String> files, Map<String, String> links) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = TarStreams.newOutput(bytes)) {
            for (Map.Entry<String, String> f : files.entrySet()) {
                byte[] content = f.getValue().getBytes(StandardCharsets.UTF_8);
                TarArchiveEntry entry = new TarArchiveEntry(f.getKey());
                entry.setSize(content.length);
                tar.putArchiveEntry(entry);
                tar.write(content);
                tar.closeArchiveEntry();
            }
            for (Map.Entry<String, String> l : links.entrySet()) {
                TarArchiveEntry entry = new TarArchiveEntry(l.getKey(), TarConstants.LF_SYMLINK);
                entry.setLinkName(l.getValue());
                tar.putArchiveEntry(entry);
                tar.closeArchiveEntry();
            }
            tar.finish();
        }
        return bytes.toByteArray();
    }
}
