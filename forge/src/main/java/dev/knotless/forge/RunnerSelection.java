package dev.knotless.forge;

import java.util.List;
import java.util.Optional;

/**
 * Which runner runs what. Every runner named in a repository's record watches it and runs every
 * workflow, unless the workflow's {@code runners:} pins it to some of them. The lander, the one
 * runner that tests and lands merge-queue batches, is the first named runner that may push, else the
 * first named runner. Stateless.
 */
public final class RunnerSelection {

    private RunnerSelection() {}

    /**
     * Whether runner {@code runnerId} runs a workflow of {@code repo} pinned to {@code pins}.
     *
     * @param pins the workflow's {@code runners:}; empty for any runner that watches the repository
     */
    public static boolean runs(Repository repo, String runnerId, List<String> pins) {
        return watches(repo, runnerId) && (pins.isEmpty() || pins.contains(runnerId));
    }

    /** Whether {@code repo}'s record names runner {@code runnerId}. */
    public static boolean watches(Repository repo, String runnerId) {
        return repo.runners().contains(runnerId);
    }

    /** The runner that lands {@code repo}'s merge queue; empty when the record names no runner. */
    public static Optional<String> lander(Repository repo) {
        if (!repo.mayPush().isEmpty()) {
            // mayPush is a subset of runners; the first of runners' order that may push wins.
            return repo.runners().stream().filter(repo.mayPush()::contains).findFirst();
        }
        return repo.runners().stream().findFirst();
    }

    /**
     * The one runner that queues the scheduled runs of a workflow of {@code repo} pinned to {@code
     * pins}, so that two runners never both run a due time: the lander when it may run the workflow,
     * else the first named runner that may.
     */
    public static Optional<String> scheduler(Repository repo, List<String> pins) {
        Optional<String> lander = lander(repo).filter(id -> runs(repo, id, pins));
        return lander.isPresent() ? lander : repo.runners().stream().filter(id -> runs(repo, id, pins)).findFirst();
    }

    /** Whether runner {@code runnerId} is {@code repo}'s lander. */
    public static boolean lands(Repository repo, String runnerId) {
        return lander(repo).filter(runnerId::equals).isPresent();
    }
}
