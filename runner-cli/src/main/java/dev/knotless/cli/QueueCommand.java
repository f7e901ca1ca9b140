package dev.knotless.cli;

import dev.knotless.runner.forge.Cursors;
import dev.knotless.runner.forge.EmbeddedForge;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "queue", mixinStandardHelpOptions = true,
        description = "Puts pull requests of the embedded forge in a repository's merge queue.",
        subcommands = {QueueCommand.Add.class, QueueCommand.ListQueue.class, QueueCommand.Remove.class})
final class QueueCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "add", mixinStandardHelpOptions = true,
            description = "Queues pull request PR (its head is refs/pulls/PR/head) to be tested and landed.")
    static final class Add implements Callable<Integer> {
        @Mixin RepoCommand.ForgeDir forge;
        @Spec CommandSpec spec;

        @Parameters(index = "0", paramLabel = "REPO", description = "owner/name")
        String repo;

        @Parameters(index = "1", paramLabel = "PR", description = "The pull request's number.")
        int number;

        @Override
        public Integer call() throws IOException {
            EmbeddedForge.QueuedPull entry = forge.forge(Cursors.inMemory()).enqueue(repo, number);
            spec.commandLine().getErr().println("pull request " + entry.number() + " of " + repo
                    + " queued to land on " + entry.target());
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists a repository's queue, oldest first.")
    static final class ListQueue implements Callable<Integer> {
        @Mixin RepoCommand.ForgeDir forge;
        @Spec CommandSpec spec;

        @Parameters(index = "0", paramLabel = "REPO", description = "owner/name")
        String repo;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = spec.commandLine().getOut();
            out.printf("%-6s %-20s %s%n", "PR", "TARGET", "QUEUED AT");
            for (EmbeddedForge.QueuedPull entry : forge.forge(Cursors.inMemory()).queue(repo)) {
                out.printf("%-6d %-20s %s%n", entry.number(), entry.target(), entry.queuedAt());
            }
            out.flush();
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true, description = "Takes a pull request out of the queue.")
    static final class Remove implements Callable<Integer> {
        @Mixin RepoCommand.ForgeDir forge;
        @Spec CommandSpec spec;

        @Parameters(index = "0", paramLabel = "REPO", description = "owner/name")
        String repo;

        @Parameters(index = "1", paramLabel = "PR", description = "The pull request's number.")
        int number;

        @Override
        public Integer call() throws IOException {
            if (!forge.forge(Cursors.inMemory()).dequeue(repo, number)) {
                spec.commandLine().getErr().println("knotless-run: pull request " + number + " of " + repo + " is not queued");
                return ExitCodes.USAGE;
            }
            spec.commandLine().getErr().println("pull request " + number + " of " + repo + " taken out of the queue");
            return ExitCodes.SUCCESS;
        }
    }
}
