package dev.knotless.cli;

import java.util.List;
import picocli.CommandLine.Command;

// The subcommands are added by CommandTree rather than named here: picocli would otherwise build
// every one of them (reflecting over their options and loading their types) for a bare --help.
@Command(
        name = "knotless-run",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "Runs a repository's workflows in fresh environments and reports checks.",
        commandListHeading = "%nCommands:%n")
final class KnotlessRunCommand extends CommandGroup {

    /** The subcommands, in the order --help lists them. */
    static final List<Class<?>> SUBCOMMANDS = List.of(ExecCommand.class, DaemonCommand.class, ChecksCommand.class,
            SecretsCommand.class, VarsCommand.class, EnvironmentsCommand.class,
            CacheCommand.class, RepoCommand.class, QueueCommand.class, RerunCommand.class,
            SchedulesCommand.class, KubernetesCommand.class, NodeCommand.class, NodesCommand.class,
            ApiTokenCommand.class);
}
