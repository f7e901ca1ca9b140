package dev.knotless.runner.run.step.protocol;

import dev.knotless.checks.Annotation;
import dev.knotless.executor.Environment;
import dev.knotless.plan.StepFiles;
import dev.knotless.runner.run.record.Masks;
import dev.knotless.runner.run.step.evaluate.Handed;
import dev.knotless.tar.Printable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What a run's steps handed back, kept for the steps after them: variables ({@code GITHUB_ENV},
 * {@code ::set-env::}), directories for {@code PATH} ({@code GITHUB_PATH}, {@code ::add-path::}),
 * each step's outputs ({@code GITHUB_OUTPUT}, {@code ::set-output::}) and state ({@code
 * GITHUB_STATE}, {@code ::save-state::}), and the run's summary. One per run; what a step's files
 * and commands hand back is taken in here as it comes, and {@link #start} makes the next step's
 * start of it.
 *
 * <p>Outputs and state are kept by step number; the steps' ids name them in expressions ({@code
 * run.step.evaluate}). State is only kept: a post step that would read it ({@code PrePost}) is not
 * carried out yet.
 *
 * <p>Concurrency: thread-safe; commands arrive on a step's output thread.
 */
public final class HandedBack implements Handed {

    /** Directories one run may put on {@code PATH}. */
    public static final int MOST_PATHS = 1_000;
    /** The variable the directories for {@code PATH} reach the step's first shell by; it is gone before the step's command starts. */
    static final String PATH_BEFORE = "KNOTLESS_PATH_BEFORE";

    private final StepFiles plan;
    private final StepFileLayout layout;
    private final Masks masks;
    private final Summaries summaries;
    private final String workspace;
    private final CommandState commands = new CommandState();
    private final Map<String, String> environment = new LinkedHashMap<>();
    /** Oldest first; a step gets them newest first. */
    private final Set<String> path = new LinkedHashSet<>();
    private final Map<Integer, Map<String, String>> outputs = new HashMap<>();
    private final Map<Integer, Map<String, String>> state = new HashMap<>();

    /**
     * @param masks the run log's masks: what a step adds to them is masked in every line after
     * @param workspace the plan's workspace, which annotations name files relative to
     * @param event the event's payload, which each step gets a file of where the plan names one
     */
    public HandedBack(StepFiles plan, Masks masks, Summaries summaries, String workspace, @Nullable String event) {
        this.plan = plan;
        this.layout = new StepFileLayout(plan, event);
        this.masks = masks;
        this.summaries = summaries;
        this.workspace = workspace;
    }

    /** Whether the run's steps hand anything back: a file or a command. */
    public boolean any() {
        return plan.any();
    }

    public StepFileLayout layout() {
        return layout;
    }

    /**
     * Step {@code number}'s start: the variables handed back so far under its own, its {@code
     * computed} values, the names of its files and the directories for {@code PATH} over them, and
     * the shell text that makes its files and puts the directories first on {@code PATH}.
     */
    public synchronized StepStart start(int number, Map<String, String> computed) {
        if (!any() && !layout.any() && computed.isEmpty()) {
            return StepStart.NONE;
        }
        Map<String, String> over = new LinkedHashMap<>(computed);
        over.putAll(layout.variables(number));
        StringBuilder prelude = new StringBuilder(layout.prelude(number));
        if (!path.isEmpty()) {
            over.put(PATH_BEFORE, String.join(":", new ArrayList<>(path).reversed()));
            prelude.append("PATH=\"$" + PATH_BEFORE + "${PATH:+:$PATH}\"; export PATH; unset " + PATH_BEFORE + "; ");
        }
        return new StepStart(environment, over, prelude.toString());
    }

    /** The commands of step {@code number}, read from its output into {@code report}. */
    public StepCommands commands(int number, StepReport report, Map<String, String> stepEnvironment) {
        return new StepCommands(this, commands, report, masks, stepEnvironment, workspace, number);
    }

    /** Whether commands are read from the steps' output at all. */
    public boolean readsCommands() {
        return plan.commands();
    }

    /**
     * Takes in step {@code number}'s files, as read after it ended, in the order GitHub's runner
     * processes them (path, environment, summary, state, output); a file it cannot read fails the
     * step and the others are still taken in, as there.
     */
    public void takeFiles(int number, Map<StepFiles.Purpose, byte[]> files, StepReport report) {
        for (StepFiles.Purpose purpose : List.of(StepFiles.Purpose.PATH, StepFiles.Purpose.ENVIRONMENT,
                StepFiles.Purpose.SUMMARY, StepFiles.Purpose.STATE, StepFiles.Purpose.OUTPUTS)) {
            byte[] bytes = files.get(purpose);
            if (bytes != null && bytes.length > 0) {
                take(number, purpose, text(bytes), report);
            }
        }
    }

    private void take(int number, StepFiles.Purpose purpose, String text, StepReport report) {
        String variable = layout.variable(purpose);
        switch (purpose) {
            case PATH -> {
                for (String dir : (Iterable<String>) text.lines().filter(l -> !l.isEmpty())::iterator) {
                    if (!addPath(dir, report, variable)) {
                        break; // one line says why; the lines after it would only say it again
                    }
                }
            }
            case SUMMARY -> summary(text, report);
            case ENVIRONMENT, STATE, OUTPUTS -> {
                EnvFile file = EnvFile.parse(text);
                for (Map.Entry<String, String> pair : file.pairs()) {
                    switch (purpose) {
                        case ENVIRONMENT -> setEnvironment(pair.getKey(), pair.getValue(), report, variable);
                        case STATE -> saveState(number, pair.getKey(), pair.getValue());
                        default -> output(number, pair.getKey(), pair.getValue(), report);
                    }
                }
                if (file.problem() != null) {
                    // GitHub's runner's two lines, then the step's reason
                    report.annotate(Annotation.of(Annotation.Kind.ERROR, "Unable to process file command '"
                            + StepFileLayout.name(purpose) + "' successfully."));
                    report.fail("wrote a " + variable + " that cannot be read: " + file.problem());
                }
            }
        }
    }

    /**
     * A variable for the steps after this one, set with {@code by} (the environment file's variable,
     * or {@code ::set-env::}). {@code NODE_OPTIONS} is refused as GitHub's runner refuses it (an
     * error annotation in its words, the step goes on), and so are {@code KNOTLESS_} names, which are
     * the runner's; a name no process can be given, or a value with a NUL, fails the step.
     */
    synchronized void setEnvironment(String name, String value, StepReport report, String by) {
        if (name.equalsIgnoreCase("NODE_OPTIONS") || name.toUpperCase(Locale.ROOT).startsWith("KNOTLESS_")) {
            report.annotate(Annotation.of(Annotation.Kind.ERROR, by.startsWith("::")
                    ? "Can't update " + name + " environment variable using " + by + " command."
                    : "Can't store " + name + " output parameter using '$" + by + "' command."));
            return;
        }
        if (!Environment.isName(name)) {
            report.fail("set '" + Printable.name(name) + "' with " + by + ", which is not a name a process can be given"
                    + " (letters, digits and _, not starting with a digit)");
            return;
        }
        if (value.indexOf('\0') >= 0) {
            report.fail("set " + name + " with " + by + " to a value holding a NUL, which no environment can carry");
            return;
        }
        environment.remove(name); // a variable set again goes last, as the file said it
        environment.put(name, value);
    }

    /** A directory for {@code PATH}: a later one goes before an earlier one, and one given again moves to the front. */
    synchronized boolean addPath(String dir, StepReport report, String how) {
        path.remove(dir);
        if (path.size() == MOST_PATHS) {
            report.fail("put more than " + MOST_PATHS + " directories on PATH with " + how);
            return false;
        }
        if (dir.indexOf('\0') >= 0) {
            report.fail("put a directory holding a NUL on PATH with " + how);
            return false;
        }
        path.add(dir);
        return true;
    }

    synchronized void output(int number, String name, String value, StepReport report) {
        outputs.computeIfAbsent(number, n -> new LinkedHashMap<>()).put(name, value);
        report.output(name, value);
    }

    synchronized void saveState(int number, String name, String value) {
        state.computeIfAbsent(number, n -> new LinkedHashMap<>()).put(name, value);
    }

    /** Step {@code number}'s outputs as the plan works them out after it (a local action's), over any it handed back. */
    public synchronized void handOn(int number, Map<String, String> values) {
        outputs.computeIfAbsent(number, n -> new LinkedHashMap<>()).putAll(values);
    }

    /** The variables handed back so far, in the order first set, for the steps after. */
    @Override
    public synchronized Map<String, String> environment() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(environment));
    }

    /** Step {@code number}'s outputs as it handed them back, unmasked: what later steps read. */
    @Override
    public synchronized Map<String, String> outputsOf(int number) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(outputs.getOrDefault(number, Map.of())));
    }

    /** Step {@code number}'s state, kept for the post step that will read it. */
    @Override
    public synchronized Map<String, String> stateOf(int number) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(state.getOrDefault(number, Map.of())));
    }

    /** Where the run's summary is, once a step handed one back; else null. */
    public java.nio.file.@org.jspecify.annotations.Nullable Path summary() {
        return summaries.file();
    }

    private void summary(String markdown, StepReport report) {
        try {
            if (!summaries.add(masks.mask(markdown))) {
                report.notice("its summary was left out: the run's summaries would come to more than "
                        + (Summaries.MOST_BYTES >> 20) + " MiB");
            }
        } catch (IOException e) {
            report.notice("its summary could not be kept: " + e.getMessage());
        }
    }

    /** A file's text as GitHub's runner reads it: UTF-8, a byte order mark dropped. */
    private static String text(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        return text.startsWith("\uFEFF") ? text.substring(1) : text;
    }
}
