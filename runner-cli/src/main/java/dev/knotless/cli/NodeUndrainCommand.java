package dev.knotless.cli;

import dev.knotless.http.NodeFleet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code node undrain}, on the runner host: the node takes new runs again. */
@Command(name = "undrain", mixinStandardHelpOptions = true,
        description = "On the runner host: the daemon places new runs on the node again.")
final class NodeUndrainCommand implements Callable<Integer> {
    @Parameters(paramLabel = "NODE_ID", description = "The node, as the nodes file names it.")
    String node;

    @Mixin
    StateDirOption state;

    @Spec CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        boolean changed = NodeWiring.fleet(state.stateDir(), null).setDrained(node, false) == NodeFleet.Change.CHANGED;
        spec.commandLine().getOut().println(node + (changed ? " undrained" : " was not drained") + ": new runs may be placed on it");
        return ExitCodes.SUCCESS;
    }
}
