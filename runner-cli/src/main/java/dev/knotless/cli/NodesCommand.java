package dev.knotless.cli;

import picocli.CommandLine.Command;

/**
 * {@code knotless-run nodes}: {@code node list} under a shorter name, the fleet being looked at far
 * more often than nodes are set up. The same class with another name, so the two cannot drift; the
 * description is repeated here because the launcher's command list reads this annotation alone.
 */
@Command(name = "nodes", mixinStandardHelpOptions = true, description = {NodeListCommand.SUMMARY, NodeListCommand.DETAIL})
final class NodesCommand extends NodeListCommand {}
