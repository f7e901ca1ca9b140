package dev.knotless.cli;

import picocli.CommandLine.Command;

/** {@code node undrain}, on the runner host: the node takes new runs again. */
@Command(name = "undrain", mixinStandardHelpOptions = true,
        description = "On the runner host: the daemon places new runs on the node again.")
final class NodeUndrainCommand extends NodeDrainMark {

    NodeUndrainCommand() {
        super(false, new Wording("undrained", "was not drained", "new runs may be placed on it"));
    }
}
