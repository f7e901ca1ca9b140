package dev.knotless.cli;

import dev.knotless.http.NodeFleet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code node drain}, on the runner host: no new run is placed on the node. */
@Command(name = "drain", mixinStandardHelpOptions = true,
        description = {"On the runner host: the daemon places no new run on the node; runs already on it finish.",
                "Kept in STATE_DIR/" + NodeWiring.DRAINS_FILE + " (durable; the daemon sees it within a placement);"
                + " 'node undrain' gives the node runs again."})
final class NodeDrainCommand implements Callable<Integer> {
    @Parameters(paramLabel = "NODE_ID", description = "The node, as the nodes file names it.")
    String node;

    @Mixin
    StateDirOption state;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        boolean changed = NodeWiring.fleet(state.stateDir(), null).setDrained(node, true) == NodeFleet.Change.CHANGED;
        spec.commandLine().getOut().println(node + (changed ? " drained" : " was drained already")
                + ": no new run is placed on it; runs on it finish");
        return ExitCodes.SUCCESS;
    }
}
