package dev.knotless.cli;

import dev.knotless.checkout.Mirrors;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code --repo} and {@code --state-dir}: whose settings a command changes, and where the runner keeps them. */
final class RepositoryOption {

    @Option(names = "--repo", required = true, paramLabel = "REPO",
            description = "The repository: the same path or URL given to exec.")
    String repo;

    @Mixin
    StateDirOption state;

    /** The repository as runs name it (its mirror's name). */
    String repoName() throws IOException {
        return Mirrors.repoName(repo);
    }

    Path stateDir() {
        return state.stateDir();
    }
}
