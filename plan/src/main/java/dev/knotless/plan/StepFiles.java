package dev.knotless.plan;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Files through which a step hands values and commands back to the runner: each reaches the step
 * as an environment variable naming its path, and the run reads it once the step has ended.
 *
 * <p>Ours has none ({@link #NONE}): a step answers with its exit code and output, and with files in
 * {@code $KNOTLESS_RUN_OUTPUTS}, which are shown on the check, not handed to later steps. GitHub
 * Actions' front-end will name {@code GITHUB_OUTPUT}, {@code GITHUB_ENV}, {@code GITHUB_PATH},
 * {@code GITHUB_STEP_SUMMARY} and {@code GITHUB_STATE}.
 *
 * @param variables the variable that names each file, by what the file is for
 */
public record StepFiles(Map<Purpose, String> variables) {

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

    /** Ours: no file; a step hands nothing back but its exit code and output. */
    public static final StepFiles NONE = new StepFiles(Map.of());

    public StepFiles {
        Map<Purpose, String> copy = new EnumMap<>(Purpose.class);
        copy.putAll(variables);
        variables = Collections.unmodifiableMap(copy);
    }
}
