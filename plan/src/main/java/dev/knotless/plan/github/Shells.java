package dev.knotless.plan.github;

import dev.knotless.plan.Shell;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree.Position;
import java.util.Arrays;
import java.util.List;

/** GitHub's {@code shell:} values on Linux, as its runner turns each into a command. */
final class Shells {

    /**
     * No {@code shell} given: GitHub's {@code bash -e {0}} where the image has bash, else
     * {@code sh -e {0}}. Which one is decided in the run, as GitHub's runner looks for bash on
     * the {@code PATH} of the job's container.
     */
    static final Shell DEFAULT = new Shell(List.of("/bin/sh", "-c",
            "if command -v bash >/dev/null 2>&1; then exec bash -e \"$1\"; fi; exec sh -e \"$1\"", "sh", Shell.SCRIPT), "", "");
    static final Shell BASH = new Shell(List.of("bash", "--noprofile", "--norc", "-eo", "pipefail", Shell.SCRIPT), "", "");
    static final Shell SH = new Shell(List.of("sh", "-e", Shell.SCRIPT), "", "");
    static final Shell PYTHON = new Shell(List.of("python", Shell.SCRIPT), "", "");

    private Shells() {}

    /** Whether {@code shell} runs its script with a POSIX shell, which reads {@code ${NAME}} as a variable's value. */
    static boolean readsVariables(Shell shell) {
        return shell.equals(DEFAULT) || shell.equals(BASH) || shell.equals(SH);
    }

    static Shell of(String written, Position at, String path, Fields fields) throws WorkflowException {
        return switch (written) {
            case "bash" -> BASH;
            case "sh" -> SH;
            case "python" -> PYTHON;
            case "pwsh", "powershell", "cmd" -> throw fields.error(at, path, "'" + written + "' is not carried out here:"
                    + " jobs run in Linux containers; use bash, sh, python or a command with {0}");
            default -> {
                List<String> words = Arrays.stream(written.strip().split("\\s+")).toList();
                if (words.stream().noneMatch(w -> w.contains(Shell.SCRIPT))) {
                    throw fields.error(at, path, "'" + written + "' is not a shell GitHub knows (bash, sh, python) nor a"
                            + " command naming the script as {0}, such as 'perl {0}'");
                }
                yield new Shell(words, "", "");
            }
        };
    }
}
