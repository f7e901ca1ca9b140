package dev.knotless.cli;

import dev.knotless.http.NodeFleet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code node drain} and {@code node undrain}: one mark on a node in the state directory, set or
 * cleared, so the two take the same arguments and say what they did in the same words.
 */
abstract sealed class NodeDrainMark implements Callable<Integer> permits NodeDrainCommand, NodeUndrainCommand {

    @Parameters(paramLabel = "NODE_ID", description = "The node, as the nodes file names it.")
    String node;

    @Mixin
    StateDirOption state;

    @Spec CommandSpec spec;

    private final boolean drained;
    private final Wording wording;

    /** How the command says it {@code changed} the mark, or found it {@code unchanged}, and what that means for runs. */
    record Wording(String changed, String unchanged, String effect) {}

    NodeDrainMark(boolean drained, Wording wording) {
        this.drained = drained;
        this.wording = wording;
    }

    @Override
    public final Integer call() throws Exception {
        boolean changed = NodeWiring.fleet(state.stateDir(), null).setDrained(node, drained) == NodeFleet.Change.CHANGED;
        spec.commandLine().getOut().println(node + " " + (changed ? wording.changed() : wording.unchanged())
                + ": " + wording.effect());
        return ExitCodes.SUCCESS;
    }
}
