package dev.knotless.runner.run.step.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.plan.Computed;
import dev.knotless.plan.Step;
import dev.knotless.plan.StepFiles;
import dev.knotless.runner.run.StepProtocolPlans;
import dev.knotless.runner.run.record.Masks;
import dev.knotless.secrets.Masker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the run keeps of what its steps handed back, and how a step starts with it. */
class HandedBackTest {

    @TempDir Path dir;
    HandedBack handed;
    Summaries summaries;

    @BeforeEach
    void setUp() {
        summaries = new Summaries(dir.resolve("logs/run.summary.md"));
        handed = new HandedBack(StepProtocolPlans.GITHUB, new Masks(Masker.none()), summaries, "/work", null);
    }

    private StepReport take(int step, StepFiles.Purpose purpose, String text) {
        StepReport report = new StepReport();
        Map<StepFiles.Purpose, byte[]> files = new EnumMap<>(StepFiles.Purpose.class);
        files.put(purpose, text.getBytes(StandardCharsets.UTF_8));
        handed.takeFiles(step, files, report);
        return report;
    }

    @Test
    void stateIsKeptByStepForThePostStepThatWillReadIt() {
        take(4, StepFiles.Purpose.STATE, "\uFEFFpid=42\nCACHE<<E\n/var/x\nE\n");
        assertThat(handed.stateOf(4)).containsExactly(Map.entry("pid", "42"), Map.entry("CACHE", "/var/x"));
        assertThat(handed.stateOf(5)).isEmpty();
    }

    @Test
    void aVariableSetAgainGoesLastAndOursAreUnchangedWithoutAnything() {
        take(1, StepFiles.Purpose.ENVIRONMENT, "A=1\nB=2\nA=3\n");
        assertThat(handed.start(2, Map.of()).under()).containsExactly(Map.entry("B", "2"), Map.entry("A", "3"));
        HandedBack ours = new HandedBack(StepFiles.NONE, new Masks(Masker.none()), summaries, "/work", null);
        assertThat(ours.start(1, Map.of())).isSameAs(StepStart.NONE);
    }

    @Test
    void directoriesForPathAreBoundedAndTheFileStopsAtTheFirstRefusedOne() {
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < HandedBack.MOST_PATHS + 500; i++) {
            many.append("/opt/d").append(i).append('\n');
        }
        StepReport report = take(1, StepFiles.Purpose.PATH, many.toString());
        assertThat(report.failure()).isEqualTo("put more than 1000 directories on PATH with GITHUB_PATH");
        assertThat(report.notices()).hasSize(1);
        String path = handed.start(2, Map.of()).over().get(HandedBack.PATH_BEFORE);
        assertThat(path.split(":")).hasSize(HandedBack.MOST_PATHS).startsWith("/opt/d999");
    }

    @Test
    void theRunsSummariesAreKeptUpToTheirBoundInStepOrder() throws Exception {
        take(1, StepFiles.Purpose.SUMMARY, "# one");
        StepReport over = take(2, StepFiles.Purpose.SUMMARY, "x".repeat((int) Summaries.MOST_BYTES));
        take(3, StepFiles.Purpose.SUMMARY, "# three\n");
        assertThat(over.notices()).containsExactly("its summary was left out: the run's summaries would come to more than 1 MiB");
        assertThat(handed.summary()).isNotNull();
        assertThat(Files.readString(handed.summary())).isEqualTo("# one\n# three\n");
        StepResult result = over.applyTo(new StepResult("s", StepStatus.SUCCESS, 0, 1, null), false, new Masks(Masker.none()));
        assertThat(result.status()).as("a summary left out is said, not a failure").isEqualTo(StepStatus.SUCCESS);
    }

    @Test
    void theCheckShowsAtMostItsBoundOfOutputsEachCutButLaterStepsReadThemWhole() {
        StringBuilder outputs = new StringBuilder("long=" + "v".repeat(StepReport.MOST_SHOWN_VALUE + 10) + "\n");
        for (int i = 0; i < 150; i++) {
            outputs.append("o").append(i).append("=").append(i).append('\n');
        }
        StepReport report = take(1, StepFiles.Purpose.OUTPUTS, outputs.toString());
        StepResult shown = report.applyTo(new StepResult("s", StepStatus.SUCCESS, 0, 1, null), false, new Masks(Masker.none()));
        assertThat(shown.outputs()).hasSize(StepReport.MOST_SHOWN_OUTPUTS);
        assertThat(shown.outputs().get("long")).hasSize(StepReport.MOST_SHOWN_VALUE + 1).endsWith("v…");
        assertThat(handed.outputsOf(1)).hasSize(151);
        assertThat(handed.outputsOf(1).get("long")).hasSize(StepReport.MOST_SHOWN_VALUE + 10);
    }
}
