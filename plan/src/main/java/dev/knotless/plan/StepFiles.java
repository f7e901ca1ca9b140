package dev.knotless.plan;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * How a step hands values and commands back to the runner: files, each reaching the step as an
 * environment variable naming its path and read by the run once the step has ended, and commands
 * printed on its output, read by the run as they come; and the file of the event it is given.
 *
 * <p>Ours has neither ({@link #NONE}): a step answers with its exit code and output, and with files
 * in {@code $KNOTLESS_RUN_OUTPUTS}, which are shown on the check, not handed to later steps. GitHub
 * Actions' front-end names {@code GITHUB_OUTPUT}, {@code GITHUB_ENV}, {@code GITHUB_PATH},
 * {@code GITHUB_STEP_SUMMARY} and {@code GITHUB_STATE}, and turns its workflow commands on.
 *
 * <p>The other way, a dialect may name a file the run writes for each step before it starts: what
 * the run knows of the event that made it, as JSON ({@code GITHUB_EVENT_PATH}, which GitHub's
 * toolkit reads as {@code github.context.payload}).
 *
 * @param variables the variable that names each file, by what the file is for; empty for none
 * @param commands whether the run reads workflow commands from a step's output: lines such as
 *     {@code ::add-mask::VALUE} and {@code ::error file=F,line=L::MESSAGE}, in GitHub Actions' syntax,
 *     which every dialect that has such commands shares (Gitea's and Forgejo's runners read the same)
 * @param eventVariable the variable that names the event's file; null for none
 */
public record StepFiles(Map<Purpose, String> variables, boolean commands, @Nullable String eventVariable) {

    /** What a file hands back. */
    public enum Purpose {
        /** {@code name=value} lines: the step's outputs, read by later steps as {@link Computed.StepOutput}. */
        OUTPUTS,
        /** {@code name=value} lines: variables for the steps after it. */
        ENVIRONMENT,
        /** Directories, one a line, put first on {@code PATH} for the steps after it. */
        PATH,
        /** Markdown shown on the check. */
        SUMMARY,
        /** {@code name=value} lines kept for the same action's post step ({@link PrePost}). */
        STATE
    }

    /** Ours: no file and no command; a step hands nothing back but its exit code and output. */
    public static final StepFiles NONE = new StepFiles(Map.of(), false);

    public StepFiles {
        Map<Purpose, String> copy = new EnumMap<>(Purpose.class);
        copy.putAll(variables);
        variables = Collections.unmodifiableMap(copy);
    }

    /** Files and commands that hand values back; no event file. */
    public StepFiles(Map<Purpose, String> variables, boolean commands) {
        this(variables, commands, null);
    }

    /** Files only: no command is read from a step's output, no event file written. */
    public StepFiles(Map<Purpose, String> variables) {
        this(variables, false);
    }

    /** Whether a step hands anything back at all: a file, or a command on its output. */
    public boolean any() {
        return commands || !variables.isEmpty();
    }
}
