package dev.knotless.runner.run.step.protocol;

import dev.knotless.checks.Annotation;
import dev.knotless.runner.run.record.Masks;
import dev.knotless.secrets.Masker;
import dev.knotless.tar.Printable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Carries out the workflow commands of one step's output, as GitHub's runner does
 * ({@code ActionCommandManager} in actions/runner's {@code src/Runner.Worker/ActionCommandManager.cs};
 * its messages are quoted from there and from {@code src/Runner.Common/Constants.cs}). A command it
 * cannot carry out fails the step with GitHub's two error lines ("Unable to process command ...
 * successfully." and why), and the step's other lines go on as they are. The lines themselves stay
 * in the log as printed (the log is what the step printed, byte for byte), except the value of an
 * {@code ::add-mask::}, which the masker hides there, or which is blanked where it could not.
 */
public final class StepCommands implements CommandLines.Lines {

    /** Values the steps of one run may add to the masks: each costs a new masker of all of them. */
    public static final int MOST_MASKS = 100;
    /** The longest value one {@code ::add-mask::} may add (a PEM private key is about 3 KiB). */
    public static final int MOST_MASK_BYTES = 8 * 1024;

    static final String DEPRECATED = "The `%s` command is deprecated and will be disabled soon. Please upgrade to using"
            + " Environment Files. For more information see:"
            + " https://github.blog/changelog/2022-10-11-github-actions-deprecating-save-state-and-set-output-commands/";
    static final String DISABLED = "The `%s` command is disabled. Please upgrade to using Environment Files or opt into"
            + " unsecure command execution by setting the `ACTIONS_ALLOW_UNSECURE_COMMANDS` environment variable to `true`."
            + " For more information see: https://github.blog/changelog/2020-10-01-github-actions-deprecating-set-env-and-add-path-commands/";
    static final String BAD_STOP_TOKEN = "You cannot use a endToken that is an empty string, the string 'pause-logging',"
            + " or another workflow command. For more information see:"
            + " https://docs.github.com/actions/learn-github-actions/workflow-commands-for-github-actions#example-stopping-and-starting-workflow-commands"
            + " or opt into insecure command execution by setting the `ACTIONS_ALLOW_UNSECURE_STOPCOMMAND_TOKENS` environment"
            + " variable to `true`.";

    private final HandedBack handed;
    private final CommandState state;
    private final StepReport report;
    private final Masks masks;
    private final Map<String, String> environment;
    private final String workspace;
    private final int number;
    private boolean matchersSaid;

    StepCommands(HandedBack handed, CommandState state, StepReport report, Masks masks, Map<String, String> environment,
            String workspace, int number) {
        this.handed = handed;
        this.state = state;
        this.report = report;
        this.masks = masks;
        this.environment = environment;
        this.workspace = workspace;
        this.number = number;
    }

    /** A command GitHub's runner could not carry out: why, in its words. */
    private static final class Refused extends Exception {
        Refused(String why) {
            super(why, null, false, false);
        }
    }

    @Override
    public void line(byte[] bytes, int length) {
        String text = new String(bytes, 0, length, StandardCharsets.UTF_8);
        Optional<WorkflowCommand> parsed = WorkflowCommand.parse(text, state::registered);
        if (parsed.isEmpty()) {
            return;
        }
        WorkflowCommand command = parsed.get();
        String token = state.stopToken();
        if (token != null) {
            if (command.is(token)) {
                state.stopUntil(null);
            }
            return;
        }
        try {
            carryOut(command, bytes, length);
        } catch (Refused e) {
            // GitHub's runner quotes the line, except for the commands whose line it never echoes
            boolean quiet = command.is("add-mask") || command.is("debug") || command.is("error") || command.is("warning")
                    || command.is("notice");
            report.annotate(Annotation.of(Annotation.Kind.ERROR, "Unable to process command '"
                    + (quiet ? command.name() : Printable.name(text)) + "' successfully."));
            report.fail(e.getMessage());
        }
    }

    @Override
    public int overlong(byte[] bytes, int length) {
        int end = WorkflowCommand.nameEnd(bytes, length, "add-mask");
        if (end < 0 || state.stopToken() != null) {
            return -1;
        }
        report.fail("an ::add-mask:: line longer than " + (CommandLines.MOST >> 10) + " KiB was not read; its value is"
                + " blanked on its line and not masked after it");
        return end;
    }

    private void carryOut(WorkflowCommand command, byte[] bytes, int length) throws Refused {
        switch (command.name().toLowerCase(Locale.ROOT)) {
            case "add-mask" -> addMask(command, bytes, length);
            case "stop-commands" -> stop(command.data());
            case "error" -> report.annotate(Annotations.of(Annotation.Kind.ERROR, command, workspace));
            case "warning" -> report.annotate(Annotations.of(Annotation.Kind.WARNING, command, workspace));
            case "notice" -> report.annotate(Annotations.of(Annotation.Kind.NOTICE, command, workspace));
            case "echo" -> echo(command.data());
            case "set-output" -> handed.output(number, deprecated(command), command.data(), report);
            case "save-state" -> handed.saveState(number, deprecated(command), command.data());
            case "set-env" -> {
                String name = allowed(command);
                handed.setEnvironment(name, command.data(), report, "::set-env::");
            }
            case "add-path" -> {
                allowed(command);
                if (command.data().isEmpty()) {
                    throw new Refused("Value cannot be null. (Parameter 'path')");
                }
                handed.addPath(command.data(), report, "::add-path::");
            }
            case "add-matcher", "remove-matcher" -> {
                if (!matchersSaid) {
                    matchersSaid = true;
                    report.notice("it asked for problem matchers (::" + command.name() + "::), which this runner does not"
                            + " carry out; its lines are kept as printed");
                }
            }
            default -> { } // group, endgroup, debug: their lines stay in the log as printed, for a page to fold or show
        }
    }

    /**
     * Masks the value from its own line on: the value, each of its lines (as GitHub's runner adds
     * them), and its text as the line escapes it, so the line itself shows {@code ***}. Where the
     * masker cannot hide it there (text too short to mask, or with control characters, which the
     * log turns into spaces before the masker sees them), the value's bytes are blanked.
     */
    private void addMask(WorkflowCommand command, byte[] bytes, int length) throws Refused {
        String value = command.data();
        if (value.isBlank()) {
            report.annotate(Annotation.of(Annotation.Kind.WARNING, "Can't add secret mask for empty string in ##[add-mask] command."));
            return;
        }
        int data = WorkflowCommand.dataStart(bytes, length, command.legacy());
        if (value.getBytes(StandardCharsets.UTF_8).length > MOST_MASK_BYTES) {
            blank(bytes, data, length);
            throw new Refused("the value is over " + (MOST_MASK_BYTES >> 10) + " KiB, more than this runner masks; it is"
                    + " blanked on its line and not masked after it");
        }
        if (!state.addMask(MOST_MASKS)) {
            blank(bytes, data, length);
            throw new Refused("the run's steps added more than " + MOST_MASKS + " values to mask; this one is blanked on"
                    + " its line and not masked after it");
        }
        List<String> values = new ArrayList<>(List.of(value, command.written()));
        Arrays.stream(value.split("[\r\n]+")).map(String::strip).filter(l -> !l.isEmpty()).forEach(values::add);
        masks.add(values);
        String shown = command.written(); // the line has the value escaped: that is what must not show
        if (!Masker.isMaskable(shown) || shown.chars().anyMatch(StepCommands::control)) {
            blank(bytes, data, length);
        }
    }

    private void stop(String token) throws Refused {
        boolean bad = token.isEmpty() || token.equalsIgnoreCase("pause-logging") || state.registered(token);
        if (bad && !enabled("ACTIONS_ALLOW_UNSECURE_STOPCOMMAND_TOKENS")) {
            throw new Refused(BAD_STOP_TOKEN);
        }
        state.stopUntil(token);
        if (token.length() > 6 && state.addMask(MOST_MASKS)) {
            masks.add(List.of(token)); // as GitHub's runner: a token that shows in the log could be printed to resume
        }
    }

    private static void echo(String value) throws Refused {
        String v = value.strip().toUpperCase(Locale.ROOT);
        if (!v.equals("ON") && !v.equals("OFF")) {
            throw new Refused("Invalid echo command value. Possible values can be: 'on', 'off'. Current value is: '"
                    + Printable.name(value) + "'.");
        }
    }

    /** The name a deprecated command sets, after GitHub's warning that it is. */
    private String deprecated(WorkflowCommand command) throws Refused {
        String lower = command.name().toLowerCase(Locale.ROOT);
        report.annotate(Annotation.of(Annotation.Kind.WARNING, DEPRECATED.formatted(lower)));
        return name(command, lower);
    }

    /** The name a disabled command sets, when the step opted into it; else it is refused as GitHub refuses it. */
    private String allowed(WorkflowCommand command) throws Refused {
        String lower = command.name().toLowerCase(Locale.ROOT);
        if (!enabled("ACTIONS_ALLOW_UNSECURE_COMMANDS")) {
            throw new Refused(DISABLED.formatted(lower));
        }
        return lower.equals("set-env") ? name(command, lower) : "";
    }

    private static String name(WorkflowCommand command, String lower) throws Refused {
        String name = command.properties().get("name");
        if (name == null || name.isEmpty()) {
            throw new Refused("Required field 'name' is missing in ##[" + lower + "] command.");
        }
        return name;
    }

    /** As .NET's {@code bool.TryParse} reads the step's variable: {@code true} in any case, with whitespace around. */
    private boolean enabled(String variable) {
        String value = environment.get(variable);
        return value != null && value.strip().equalsIgnoreCase("true");
    }

    private static boolean control(int c) {
        return (c < 0x20 && c != '\t') || c == 0x7f || (c >= 0x80 && c < 0xa0);
    }

    private static void blank(byte[] bytes, int from, int length) {
        if (from >= 0) {
            Arrays.fill(bytes, from, length, (byte) '*');
        }
    }
}
