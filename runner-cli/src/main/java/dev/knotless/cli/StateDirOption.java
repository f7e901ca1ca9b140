package dev.knotless.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --state-dir}: where the runner keeps checks, logs, outputs and mirrors. */
final class StateDirOption {

    @Option(names = "--state-dir", paramLabel = "DIR",
            defaultValue = "${env:KNOTLESS_RUN_STATE:-${sys:user.home}/.local/state/knotless-run}",
            description = "Runner state: checks, logs, outputs, mirrors (default: $KNOTLESS_RUN_STATE or ~/.local/state/knotless-run).")
    Path stateDir;

    Path stateDir() {
        return stateDir.toAbsolutePath().normalize();
    }
}
