package dev.knotless.cli;

import dev.knotless.forge.Cursors;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.QueueRow;
import dev.knotless.runner.state.QueueState;
import dev.knotless.runner.state.StateStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "queue", mixinStandardHelpOptions = true,
        description = "Puts pull requests of the embedded forge in a repository's merge queue, which the lander"
                + " (daemon --queue) tests in batches and lands.",
        subcommands = {QueueCommand.Add.class, QueueCommand.ListQueue.class, QueueCommand.Remove.class})
final class QueueCommand extends CommandGroup {

    /** --state-dir, --forge-dir and REPO: the queue every subcommand acts on. */
    static sealed class Target permits PullTarget {
        @Mixin RepoCommand.ForgeDir forge;

        @Parameters(index = "0", paramLabel = "REPO", description = "owner/name")
        String repo;
    }

    /** The queue and PR: the pull request add and rm act on. */
    static final class PullTarget extends Target {
        @Parameters(index = "1", paramLabel = "PR", description = "The pull request's number.")
        int number;
    }

    @Command(name = "add", mixinStandardHelpOptions = true,
            description = "Queues pull request PR (its head is refs/pulls/PR/head) to be tested and landed.")
    static final class Add implements Callable<Integer> {
        @Mixin PullTarget pull;
        @Spec CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            EmbeddedForge.QueuedPull entry = pull.forge.forge(Cursors.inMemory()).enqueue(pull.repo, pull.number);
            spec.commandLine().getErr().println("pull request " + entry.number() + " of " + pull.repo
                    + " queued to land on " + entry.target());
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "Lists a repository's merge queue, oldest first, with where each pull request stands:"
                    + " waiting (not taken by the lander yet), queued, testing, landed or rejected.")
    static final class ListQueue implements Callable<Integer> {
        @Mixin Target queue;
        @Spec CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            String repo = queue.repo;
            Repository.checkName(repo);
            PrintWriter out = spec.commandLine().getOut();
            List<QueueRow> rows;
            try (StateStore state = StateStore.open(queue.forge.state.stateDir())) {
                rows = state.mergeQueue().queue(repo);
            }
            record Line(int number, String target, String state, Instant queuedAt, String detail) {}
            List<Line> lines = new ArrayList<>();
            for (EmbeddedForge.QueuedPull entry : queue.forge.forge(Cursors.inMemory()).queue(repo)) {
                boolean taken = rows.stream().anyMatch(r -> r.number() == entry.number() && entry.queuedAt().equals(r.queuedAt()));
                if (!taken) {
                    lines.add(new Line(entry.number(), entry.target(), "waiting", entry.queuedAt(), ""));
                }
            }
            for (QueueRow row : rows) {
                lines.add(new Line(row.number(), row.target(), row.state().wireName(),
                        row.queuedAt() != null ? row.queuedAt() : row.updatedAt(), row.detail() == null ? "" : row.detail()));
            }
            lines.sort(Comparator.comparing(Line::queuedAt).thenComparing(Line::number));
            out.printf("%-6s %-20s %-9s %-27s %s%n", "PR", "TARGET", "STATE", "QUEUED AT", "DETAIL");
            for (Line line : lines) {
                out.printf("%-6d %-20s %-9s %-27s %s%n", line.number(), line.target(), line.state(), line.queuedAt(), line.detail());
            }
            out.flush();
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true,
            description = "Takes a pull request out of the queue; one in a batch under test lands or is rejected with it.")
    static final class Remove implements Callable<Integer> {
        @Mixin PullTarget pull;
        @Spec CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            String repo = pull.repo;
            int number = pull.number;
            Repository.checkName(repo);
            boolean removed;
            try (StateStore state = StateStore.open(pull.forge.state.stateDir())) {
                QueueRow row = state.mergeQueue().queue(repo).stream().filter(r -> r.number() == number).findFirst().orElse(null);
                if (row != null && row.state() == QueueState.TESTING) {
                    spec.commandLine().getErr().println("knotless-run: pull request " + number + " of " + repo
                            + " is being tested in a batch; it lands or is rejected with it");
                    return ExitCodes.USAGE;
                }
                removed = pull.forge.forge(Cursors.inMemory()).dequeue(repo, number);
                if (row != null && row.state() == QueueState.QUEUED) {
                    removed |= state.mergeQueue().removeQueue(repo, number);
                }
            }
            if (!removed) {
                spec.commandLine().getErr().println("knotless-run: pull request " + number + " of " + repo + " is not queued");
                return ExitCodes.USAGE;
            }
            spec.commandLine().getErr().println("pull request " + number + " of " + repo + " taken out of the queue");
            return ExitCodes.SUCCESS;
        }
    }
}
