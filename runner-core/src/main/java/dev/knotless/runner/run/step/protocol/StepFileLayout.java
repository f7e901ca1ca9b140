package dev.knotless.runner.run.step.protocol;

import dev.knotless.executor.ShellPayload;
import dev.knotless.plan.StepFiles;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Where a step's files are in the run, and the shell text that makes them: one directory per
 * step under {@link #ROOT}, one file per purpose in it ({@code output}, {@code env}, {@code path},
 * {@code summary}, {@code state}). Under {@code /tmp}, which every image has and every user may
 * write, so a step run as any user can make them; never under the workspace, wherever that is, so
 * the checkout, caches and artifacts never hold them. Each step's own directory (GitHub's runner
 * names its files anew for each step too) keeps a process an earlier step left running from
 * writing into a later step's files.
 *
 * <p>The event's file ({@link StepFiles#eventVariable}) is written by the same text before the
 * step's command, as {@code event.json} beside the steps' directories.
 *
 * @param files the plan's files; none when it names none
 * @param event the event's payload ({@link EventPayload}); null when the plan names no event file
 */
public record StepFileLayout(StepFiles files, @Nullable String event) {

    /** The layout of a plan's hand-back files alone: no event file. */
    public StepFileLayout(StepFiles files) {
        this(files, null);
    }

    /** The directory of every step's files. */
    public static final String ROOT = "/tmp/.knotless-files";

    /** Step {@code number}'s directory. */
    public String dir(int number) {
        return ROOT + "/" + number;
    }

    /** Whether the plan names any file: else nothing is made, named or read. */
    public boolean any() {
        return !files.variables().isEmpty() || writesEvent();
    }

    private boolean writesEvent() {
        return files.eventVariable() != null && event != null;
    }

    /**
     * The event's file, made anew for each step: beside the steps' directories, not in one, so that
     * reading a step's files back does not carry it.
     */
    public String eventPath() {
        return ROOT + "/event.json";
    }

    /** The file for {@code purpose} in step {@code number}'s directory. */
    public String path(int number, StepFiles.Purpose purpose) {
        return dir(number) + "/" + name(purpose);
    }

    /** The variables that name step {@code number}'s files, as the plan calls them. */
    public Map<String, String> variables(int number) {
        Map<String, String> variables = new LinkedHashMap<>();
        files.variables().forEach((purpose, variable) -> variables.put(variable, path(number, purpose)));
        if (writesEvent()) {
            variables.put(files.eventVariable(), eventPath());
        }
        return variables;
    }

    /** The variable the plan names {@code purpose}'s file by, for messages. */
    public String variable(StepFiles.Purpose purpose) {
        return files.variables().getOrDefault(purpose, purpose.name());
    }

    /**
     * The shell text that empties step {@code number}'s files before its command starts: the
     * earlier steps' directories go (as GitHub's runner deletes the last step's files), this one is
     * made with every file empty, and a step whose files cannot be made fails with one line rather
     * than run without them. Empty when the plan names no file.
     */
    public String prelude(int number) {
        if (!any()) {
            return "";
        }
        String dir = ShellPayload.quote(dir(number));
        StringBuilder make = new StringBuilder("rm -rf " + ShellPayload.quote(ROOT) + " 2>/dev/null; mkdir -p " + dir);
        for (StepFiles.Purpose purpose : files.variables().keySet()) {
            make.append(" && : > ").append(ShellPayload.quote(path(number, purpose)));
        }
        if (writesEvent()) {
            make.append(" && printf '%s' ").append(ShellPayload.quote(event)).append(" > ")
                    .append(ShellPayload.quote(eventPath()));
        }
        String missing = "knotless: the step's files could not be made in " + dir(number);
        return make.append(" || { printf '%s\\n' ").append(ShellPayload.quote(missing)).append(" >&2; exit 1; }; ").toString();
    }

    /** The file name of {@code purpose}. */
    static String name(StepFiles.Purpose purpose) {
        return switch (purpose) {
            case OUTPUTS -> "output";
            case ENVIRONMENT -> "env";
            case PATH -> "path";
            case SUMMARY -> "summary";
            case STATE -> "state";
        };
    }

    /** The purpose of the plan's files whose file is called {@code name}; empty for any other name. */
    Optional<StepFiles.Purpose> purposeOf(String name) {
        return files.variables().keySet().stream().filter(p -> name(p).equals(name)).findFirst();
    }
}
