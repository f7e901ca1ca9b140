package dev.knotless.cli;

import picocli.CommandLine.Command;

/** {@code node drain}, on the runner host: no new run is placed on the node. */
@Command(name = "drain", mixinStandardHelpOptions = true,
        description = {"On the runner host: the daemon places no new run on the node; runs already on it finish.",
                "Kept in STATE_DIR/" + NodeWiring.DRAINS_FILE + " (durable; the daemon sees it within a placement);"
                + " 'node undrain' gives the node runs again."})
final class NodeDrainCommand extends NodeDrainMark {

    NodeDrainCommand() {
        super(true, new Wording("drained", "was drained already", "no new run is placed on it; runs on it finish"));
    }
}
