package dev.knotless.plan;

import java.util.List;

/**
 * How a step's script is run: the command given the path of the file the script is written to,
 * and what is written around the script in that file.
 *
 * <p>Ours is {@link #POSIX}: the script as written, run by {@code /bin/sh -e}. GitHub Actions'
 * {@code shell:} names others ({@code bash --noprofile --norc -eo pipefail {0}}, {@code python {0}},
 * and {@code pwsh}, whose script is wrapped in a prelude and an exit check), so its front-end will
 * give each step its own. The run writes and starts every step through this, never through a
 * constant.
 *
 * @param command the argv, {@value #SCRIPT} standing for the script file's path (GitHub's own
 *     placeholder) in at least one of its words
 * @param prelude written before the script in its file
 * @param epilogue written after it
 */
public record Shell(List<String> command, String prelude, String epilogue) {

    /** Where the script file's path goes in {@link #command}. */
    public static final String SCRIPT = "{0}";

    /** Ours: {@code /bin/sh -e FILE}, the script as written. */
    public static final Shell POSIX = new Shell(List.of("/bin/sh", "-e", SCRIPT), "", "");

    public Shell {
        command = List.copyOf(command);
        if (command.stream().noneMatch(word -> word.contains(SCRIPT))) {
            throw new IllegalArgumentException("a shell's command names the script as " + SCRIPT + ": " + command);
        }
    }

    /** The command that runs the script written at {@code path}. */
    public List<String> command(String path) {
        return command.stream().map(word -> word.replace(SCRIPT, path)).toList();
    }

    /** What the file holding {@code script} holds. */
    public String file(String script) {
        return prelude + script + epilogue;
    }
}
