package dev.knotless.cli;

import dev.knotless.forge.Cursors;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.StateStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "repo", mixinStandardHelpOptions = true,
        description = "Manages the repository records of the embedded forge, which the daemon watches.",
        subcommands = {RepoCommand.Add.class, RepoCommand.ListRepos.class, RepoCommand.Remove.class})
final class RepoCommand extends CommandGroup {

    /** --state-dir and --forge-dir, shared by the repo and queue subcommands. */
    static final class ForgeDir {
        @Mixin
        StateDirOption state;

        @Option(names = "--forge-dir", paramLabel = "DIR",
                description = "The embedded forge's records (default: <state-dir>/forge).")
        @Nullable Path forgeDir;

        Path dir() {
            return forgeDir != null ? forgeDir.toAbsolutePath().normalize() : state.stateDir().resolve("forge");
        }

        EmbeddedForge forge(Cursors cursors) {
            return new EmbeddedForge(dir(), cursors);
        }
    }

    private static final Pattern URL = Pattern.compile("[a-z][a-z0-9+.-]*://.*|[^/:]+@[^/:]+:.*");

    /** A URL as it is; a local path made absolute, so that the daemon finds it from anywhere. */
    static String cloneLocation(String given) {
        if (URL.matcher(given).matches()) {
            return given;
        }
        Path path = Path.of(given);
        if (!Files.isDirectory(path)) {
            throw new IllegalArgumentException("no repository at " + given + " (give a URL or the path of a git repository)");
        }
        return path.toAbsolutePath().normalize().toString();
    }

    @Command(name = "add", mixinStandardHelpOptions = true,
            description = "Adds a repository record: every named runner watches the repository.")
    static final class Add implements Callable<Integer> {
        @Mixin ForgeDir forge;
        @Spec CommandSpec spec;

        @Parameters(index = "0", paramLabel = "NAME", description = "owner/name, as checks and the merge queue name it.")
        String name;

        @Option(names = "--clone", required = true, paramLabel = "URL_OR_PATH", description = "Where git reads it from.")
        String clone;

        @Option(names = "--default-branch", defaultValue = "main", paramLabel = "BRANCH",
                description = "Its default branch (default: ${DEFAULT-VALUE}).")
        String defaultBranch;

        @Option(names = "--runner", paramLabel = "ID",
                description = "A runner that watches it, by its id (a DID, did:plc:... or did:web:..., or a name such as ci-1);"
                        + " repeat for more, in order (the order picks the lander).")
        java.util.List<String> runners = new ArrayList<>();

        @Option(names = "--may-push", paramLabel = "ID", description = "A runner (one of --runner) that may push to it.")
        java.util.List<String> mayPush = new ArrayList<>();

        @Override
        public Integer call() throws IOException {
            Repository repo = new Repository(name, cloneLocation(clone), defaultBranch, runners, mayPush);
            forge.forge(Cursors.inMemory()).add(repo);
            spec.commandLine().getErr().println("repository " + repo.name() + " added"
                    + (repo.runners().isEmpty() ? " (no runner watches it yet: add --runner ID)" : ""));
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the repository records.")
    static final class ListRepos implements Callable<Integer> {
        @Mixin ForgeDir forge;
        @Spec CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = spec.commandLine().getOut();
            out.printf("%-30s %-12s %-24s %-24s %s%n", "NAME", "BRANCH", "RUNNERS", "MAY PUSH", "CLONE");
            for (Repository repo : forge.forge(Cursors.inMemory()).repositories()) {
                out.printf("%-30s %-12s %-24s %-24s %s%n", repo.name(), repo.defaultBranch(),
                        String.join(",", repo.runners()), String.join(",", repo.mayPush()), repo.cloneUrl());
            }
            out.flush();
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true,
            description = "Removes a repository record, its pull and queue records, and where polling had got to.")
    static final class Remove implements Callable<Integer> {
        @Mixin ForgeDir forge;
        @Spec CommandSpec spec;

        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Override
        public Integer call() throws IOException {
            Repository.checkName(name);
            try (StateStore state = StateStore.open(forge.state.stateDir())) {
                if (!forge.forge(state.cursors()).remove(name)) {
                    spec.commandLine().getErr().println("knotless-run: no repository " + name);
                    return ExitCodes.USAGE;
                }
            }
            spec.commandLine().getErr().println("repository " + name + " removed");
            return ExitCodes.SUCCESS;
        }
    }
}
