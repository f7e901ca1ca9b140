package dev.knotless.runner.run.output;

import static dev.knotless.testkit.CraftedTars.file;
import static dev.knotless.testkit.CraftedTars.symlink;
import static dev.knotless.testkit.CraftedTars.tar;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Output;
import dev.knotless.executor.RunLayout;
import dev.knotless.runner.run.RunFixture;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.testkit.FakeSession;
import dev.knotless.testkit.RecordingExecutor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a run's {@code /outputs} may make the runner read, keep and print ({@link CollectOutputs}). */
class CollectOutputsTest {

    private static final String ONE_STEP = "steps:\n  - {name: build, run: make}\n";

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

    /** The outputs directory is {@code state/outputs/<run>}: three links up is the state directory. */
    @Test
    void aLinkChainToTheRunnersKeyIsRefusedAndTheKeyIsNeverRead() throws IOException {
        Files.writeString(dir.resolve("runner.key"), "PRIVATE KEY of the runner");
        session.downloads(RunLayout.OUTPUTS, tar(symlink("a", "."), symlink("b", "a/.."), symlink("c", "b/.."),
                symlink("key", "c/runner.key"), file("report.txt", 2)));
        Check check = fixture.run(executor).execute(fixture.request(ONE_STEP), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(check.reason()).startsWith("outputs refused: ").contains("refused archive entry 'b'", "outside the target");
        assertThat(check.outputs()).isEmpty();
        assertThat(fixture.log(check)).doesNotContain("PRIVATE KEY");
        assertThat(left(check)).as("entries written before the refusal").isEmpty();
    }

    /** What a run left in its output directory. */
    private List<String> left(Check check) throws IOException {
        Path out = fixture.files.outputDir(check.id());
        if (!Files.exists(out, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        try (Stream<Path> all = Files.walk(out)) {
            return all.filter(p -> !p.equals(out)).map(p -> out.relativize(p).toString()).sorted().toList();
        }
    }

    @Test
    void linksThatStayInsideAreNotListedAndANoticeNamesThem() throws IOException {
        session.downloads(RunLayout.OUTPUTS, tar(file("report.txt", 2), symlink("alias", "report.txt"),
                symlink("here", ".")));
        Check check = fixture.run(executor).execute(fixture.request(ONE_STEP), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(check.outputs()).extracting(Output::name).containsExactly("report.txt");
        assertThat(fixture.log(check)).contains("outputs: 2 symlink(s) not listed (outputs are regular files): alias, here");
    }

    @Test
    void theCheckListsAtMostItsCapAndCountsTheRest() throws IOException {
        fixture.limits = new RunLimits(1 << 20, 1 << 20, Duration.ofMinutes(20), Duration.ofSeconds(1), 1 << 20, 1 << 20, 100, 3);
        TarArchiveEntry[] files = new TarArchiveEntry[8];
        for (int i = 0; i < files.length; i++) {
            files[i] = file("f" + i, 0);
        }
        session.downloads(RunLayout.OUTPUTS, tar(files));
        Check check = fixture.run(executor).execute(fixture.request(ONE_STEP), new Cancellation());

        assertThat(check.outputs()).extracting(Output::name).containsExactly("f0", "f1", "f2");
        assertThat(fixture.log(check)).contains("outputs: 5 more outputs not listed (the check lists at most 3)");
    }

    @Test
    void moreEntriesThanTheLimitRefuseTheOutputs() throws IOException {
        fixture.limits = new RunLimits(1 << 20, 1 << 20, Duration.ofMinutes(20), Duration.ofSeconds(1), 1 << 20, 1 << 20, 100, 3);
        TarArchiveEntry[] files = new TarArchiveEntry[101];
        for (int i = 0; i < files.length; i++) {
            files[i] = file("f" + i, 0);
        }
        session.downloads(RunLayout.OUTPUTS, tar(files));
        Check check = fixture.run(executor).execute(fixture.request(ONE_STEP), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(check.reason()).isEqualTo("outputs refused: download of /outputs: archive has more than its limit of 100 entries"
                + " (at entry 'f100')");
        assertThat(check.outputs()).isEmpty();
        assertThat(left(check)).as("the 100 entries written before the refusal").isEmpty();
    }

    @Test
    void anOutputNamedWithTerminalEscapesIsPrintedEscaped() throws IOException {
        session.downloads(RunLayout.OUTPUTS, tar(file("\u001b[31mred\nfake notice", 1)));
        Check check = fixture.run(executor).execute(fixture.request(ONE_STEP), new Cancellation());

        assertThat(check.outputs()).extracting(Output::name).containsExactly("\u001b[31mred\nfake notice");
        assertThat(fixture.log(check)).contains("outputs: \\x1b[31mred\\x0afake notice (text/plain").doesNotContain("\u001b");
    }
}
