package dev.knotless.cli;

import picocli.CommandLine.Command;

@Command(
        name = "knotless-run",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "Runs a repository's workflows in fresh environments and reports checks.",
        subcommands = {ExecCommand.class, DaemonCommand.class, ChecksCommand.class, SecretsCommand.class, CacheCommand.class, RepoCommand.class,
            QueueCommand.class, RerunCommand.class, SchedulesCommand.class, KubernetesCommand.class, NodeCommand.class, ApiTokenCommand.class},
        commandListHeading = "%nCommands:%n")
final class KnotlessRunCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
