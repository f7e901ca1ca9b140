package dev.knotless.runner.run.step.protocol;

import static dev.knotless.executor.OutputSink.Stream.STDERR;
import static dev.knotless.executor.OutputSink.Stream.STDOUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Annotation;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.OutputSink;
import dev.knotless.runner.run.StepProtocolPlans;
import dev.knotless.runner.run.record.Masks;
import dev.knotless.secrets.Masker;
import dev.knotless.secrets.MaskingSink;
import dev.knotless.testkit.RecordingOutput;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workflow commands carried out as GitHub's runner carries them out, each seen through a step's
 * output as the run reads it: the command reader, then the log's masker.
 */
class StepCommandsTest {

    static final String WORKSPACE = "/home/runner/work/app/app";

    @TempDir Path dir;
    Masks masks;
    HandedBack handed;
    RecordingOutput log;

    @BeforeEach
    void setUp() {
        masks = new Masks(Masker.of(List.of("granted-secret")));
        handed = new HandedBack(StepProtocolPlans.GITHUB, masks, new Summaries(dir.resolve("summary.md")), WORKSPACE, null);
        log = new RecordingOutput();
    }

    /** Step {@code number} prints {@code text} with {@code environment}; returns its report. */
    StepReport step(int number, Map<String, String> environment, String... writes) {
        StepReport report = new StepReport();
        try (MaskingSink masked = masks.newStream(log)) {
            CommandLines lines = new CommandLines(masked, handed.commands(number, report, environment));
            for (String text : writes) {
                write(lines, text.startsWith("ERR:") ? STDERR : STDOUT, text.startsWith("ERR:") ? text.substring(4) : text);
            }
            lines.flush();
        }
        return report;
    }

    StepReport step(String... writes) {
        return step(1, Map.of(), writes);
    }

    @Test
    void anAddedMaskHidesTheValueOnItsOwnLineAndEveryLineAfterItOfEveryStep() {
        step("before: token-4f2a9c\n", "::add-mask::token-4f2a9c\nafter: token-4f2a9c\n");
        step(2, Map.of(), "ERR:next step: token-4f2a9c and granted-secret\n");
        assertThat(log.stdout()).isEqualTo("before: token-4f2a9c\n::add-mask::***\nafter: ***\n");
        assertThat(log.stderr()).isEqualTo("next step: *** and ***\n");
        assertThat(masks.mask("text token-4f2a9c")).isEqualTo("text ***");
    }

    @Test
    void aMultiLineValueIsMaskedAsItsLinesAndAsItsEscapedText() {
        step("::add-mask::first-line-of-it%0A  second line of it  \nfirst-line-of-it\nsecond line of it\n");
        assertThat(log.stdout()).isEqualTo("::add-mask::***\n***\n***\n");
    }

    @Test
    void theOlderFormMasksToo() {
        step("echo ##[add-mask]older-form-value\nolder-form-value\n");
        assertThat(log.stdout()).isEqualTo("echo ##[add-mask]***\n***\n");
    }

    @Test
    void aValueTheMaskerCannotHideIsBlankedOnItsLineAndAnEmptyOneWarned() {
        StepReport report = step("::add-mask::ab\n::add-mask::with\u001b[31mcolour\n::add-mask::   \n");
        assertThat(log.stdout().lines().toList()).containsExactly("::add-mask::**", "::add-mask::" + "*".repeat(15),
                "::add-mask::   ");
        assertThat(annotations(report)).containsExactly(
                "warning: Can't add secret mask for empty string in ##[add-mask] command.");
        assertThat(report.failure()).isNull();
    }

    @Test
    void aValueOverItsBoundIsBlankedAndFailsTheStepWithoutQuotingIt() {
        String big = "v".repeat(StepCommands.MOST_MASK_BYTES + 1);
        StepReport report = step("::add-mask::" + big + "\n");
        assertThat(log.stdout()).isEqualTo("::add-mask::" + "*".repeat(big.length()) + "\n");
        assertThat(report.failure()).startsWith("the value is over 8 KiB");
        assertThat(annotations(report)).first().isEqualTo("error: Unable to process command 'add-mask' successfully.");
        assertThat(String.join("\n", report.notices())).doesNotContain("vvvv");
    }

    @Test
    void moreMasksThanARunTakesFailTheStepAndAreBlanked() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i <= StepCommands.MOST_MASKS; i++) {
            text.append("::add-mask::value-number-").append(i).append('\n');
        }
        StepReport report = step(text.toString());
        assertThat(report.failure()).startsWith("the run's steps added more than 100 values to mask");
        assertThat(log.stdout()).contains("::add-mask::***\n").endsWith("::add-mask::" + "*".repeat(16) + "\n");
    }

    @Test
    void errorsWarningsAndNoticesAreAnnotationsWithTheirPlaceNamedRelativeToTheWorkspace() {
        StepReport report = step("::error file=" + WORKSPACE + "/src/a.c,line=3,col=5,endColumn=9,title=Compile::it broke\n"
                + "::warning file=/etc/hosts,endLine=7::outside\n"
                + "::notice line=2,col=4::no file\n"
                + "::error line=5,endLine=7,col=1::columns across lines go\n"
                + "::error line=9,endLine=8::an end before its start\n");
        assertThat(report.failure()).as("annotations do not fail a step").isNull();
        StepResult result = report.applyTo(new StepResult("s", StepStatus.SUCCESS, 0, 1, null), false, masks);
        assertThat(result.annotations()).containsExactly(
                new Annotation(Annotation.Kind.ERROR, "it broke", "src/a.c", 3, null, 5, 9, "Compile"),
                new Annotation(Annotation.Kind.WARNING, "outside", "/etc/hosts", 7, 7, null, null, null),
                new Annotation(Annotation.Kind.NOTICE, "no file", null, 2, null, 4, null, null),
                new Annotation(Annotation.Kind.ERROR, "columns across lines go", null, 5, 7, null, null, null),
                new Annotation(Annotation.Kind.ERROR, "an end before its start", null, null, null, null, null, null));
    }

    @Test
    void aStepShowsTenAnnotationsOfEachKindAsGithubsRunnerDoesAndCountsTheRest() {
        StepReport report = step("::warning::w\n".repeat(12) + "::error::e\n".repeat(3));
        StepResult result = report.applyTo(new StepResult("s", StepStatus.SUCCESS, 0, 1, null), false, masks);
        assertThat(result.annotations()).hasSize(13);
        assertThat(report.notices()).containsExactly("2 more warning annotations than the 10 a step shows");
    }

    @Test
    void noCommandIsReadBetweenStopCommandsAndItsTokenWhichIsMasked() {
        StepReport report = step("::stop-commands::pause-token-1\n::add-mask::not-masked\n::error::not read\n"
                + "::pause-token-1::\n::add-mask::masked-now\nnot-masked masked-now\n");
        assertThat(log.stdout()).isEqualTo("::stop-commands::***\n::add-mask::not-masked\n::error::not read\n::***::\n"
                + "::add-mask::***\nnot-masked ***\n");
        assertThat(annotations(report)).isEmpty();
    }

    @Test
    void aStopTokenThatIsACommandOrEmptyFailsTheStepWithGithubsMessageUnlessTheStepOptsIn() {
        StepReport report = step("::stop-commands::error\n");
        assertThat(report.failure()).isEqualTo(StepCommands.BAD_STOP_TOKEN);
        assertThat(annotations(report)).first().isEqualTo("error: Unable to process command '::stop-commands::error' successfully.");
        StepReport allowed = step(2, Map.of("ACTIONS_ALLOW_UNSECURE_STOPCOMMAND_TOKENS", "True"),
                "::stop-commands::pause-logging\n::error::not read\n::pause-logging::\n::error::read\n");
        assertThat(allowed.failure()).isNull();
        assertThat(annotations(allowed)).containsExactly("error: read");
    }

    @Test
    void setOutputAndSaveStateWorkWithGithubsDeprecationWarning() {
        StepReport report = step(3, Map.of(), "::set-output name=version::1.2%0A3\n::save-state name=pid::42\n");
        assertThat(handed.outputsOf(3)).containsExactly(Map.entry("version", "1.2\n3"));
        assertThat(handed.stateOf(3)).containsExactly(Map.entry("pid", "42"));
        assertThat(annotations(report)).containsExactly("warning: " + StepCommands.DEPRECATED.formatted("set-output"),
                "warning: " + StepCommands.DEPRECATED.formatted("save-state"));
        StepReport nameless = step("::set-output::x\n");
        assertThat(nameless.failure()).isEqualTo("Required field 'name' is missing in ##[set-output] command.");
    }

    @Test
    void setEnvAndAddPathAreRefusedAsGithubRefusesThemUnlessTheStepOptsIn() {
        StepReport refused = step("::set-env name=A::1\n::add-path::/opt/x\n");
        assertThat(refused.failure()).isEqualTo(StepCommands.DISABLED.formatted("set-env"));
        assertThat(annotations(refused)).contains("error: Unable to process command '::set-env name=A::1' successfully.",
                "error: " + StepCommands.DISABLED.formatted("add-path"));
        assertThat(handed.start(2, Map.of()).under()).isEmpty();

        StepReport allowed = step(1, Map.of("ACTIONS_ALLOW_UNSECURE_COMMANDS", "true"),
                "::set-env name=A::1\n::set-env name=NODE_OPTIONS::--x\n::add-path::/opt/x\n");
        assertThat(allowed.failure()).isNull();
        assertThat(annotations(allowed)).containsExactly(
                "error: Can't update NODE_OPTIONS environment variable using ::set-env:: command.");
        StepStart next = handed.start(2, Map.of());
        assertThat(next.under()).containsExactly(Map.entry("A", "1"));
        assertThat(next.over()).containsEntry("KNOTLESS_PATH_BEFORE", "/opt/x");
    }

    @Test
    void anEchoValueOtherThanOnOrOffFailsTheStepAndGroupsAndDebugLinesStayAsPrinted() {
        StepReport report = step("::group::Build\n::debug::detail\n::endgroup::\n::echo::on\n::echo::loud\n");
        assertThat(log.stdout()).isEqualTo("::group::Build\n::debug::detail\n::endgroup::\n::echo::on\n::echo::loud\n");
        assertThat(report.failure()).isEqualTo(
                "Invalid echo command value. Possible values can be: 'on', 'off'. Current value is: 'loud'.");
    }

    @Test
    void problemMatchersAreSaidOnceNotCarriedOut() {
        StepReport report = step("::add-matcher::.github/m.json\n::remove-matcher owner=x::\n");
        assertThat(report.notices()).containsExactly("it asked for problem matchers (::add-matcher::), which this runner"
                + " does not carry out; its lines are kept as printed");
        assertThat(report.failure()).isNull();
    }

    @Test
    void anAddMaskLineTooLongToReadIsBlankedAndFailsTheStep() {
        String value = "z".repeat(CommandLines.MOST + 5);
        StepReport report = step("::add-mask::" + value + "\nafter\n");
        assertThat(log.stdout()).isEqualTo("::add-mask" + "*".repeat(value.length() + 2) + "\nafter\n");
        assertThat(report.failure()).startsWith("an ::add-mask:: line longer than 64 KiB was not read");
    }

    private static List<String> annotations(StepReport report) {
        return report.applyTo(new StepResult("s", StepStatus.SUCCESS, 0, 1, null), false, new Masks(Masker.none()))
                .annotations().stream().map(a -> a.kind().wireName() + ": " + a.message()).toList();
    }

    private static void write(OutputSink sink, OutputSink.Stream stream, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        sink.write(stream, bytes, 0, bytes.length);
    }
}
