package dev.knotless.runner.run.request;

import dev.knotless.checkout.CheckoutException;
import dev.knotless.checkout.Mirror;
import dev.knotless.forge.ForgeEvent;
import dev.knotless.plan.ChangedFiles;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The files an event changed, read from the repository's mirror, for the workflows' path filters
 * ({@link dev.knotless.plan.Triggers#matchesPaths}). Compared as GitHub compares: a push with the
 * commit it moved the branch from, a new branch with where it left the default branch, a pull
 * request's head with where it left its target branch (the three-dot diff). What git cannot
 * answer is {@link ChangedFiles.Unknown}, which runs the workflow.
 */
public final class CommitChanges {

    /** The most files read of one event; past it, what changed counts as not known. */
    public static final int MAX_FILES = 3000;

    private CommitChanges() {}

    /**
     * What a push of {@code after} changed since {@code before}; a new branch ({@code before} is
     * {@link ForgeEvent#NO_COMMIT}) is compared with the merge base of {@code after} and {@code defaultBranch}.
     */
    public static ChangedFiles pushed(Mirror mirror, String before, String after, String defaultBranch) throws IOException {
        if (!ForgeEvent.NO_COMMIT.equals(before)) {
            return between(mirror, before, after);
        }
        try {
            String trunk = mirror.resolve(defaultBranch).sha();
            Optional<String> base = mirror.mergeBase(trunk, after);
            return base.isPresent() && !base.get().equals(after)
                    ? between(mirror, base.get(), after)
                    : new ChangedFiles.Unknown("a new branch with no commit of its own beside " + defaultBranch);
        } catch (CheckoutException e) {
            return new ChangedFiles.Unknown(e.getMessage());
        }
    }

    /** What a pull request's {@code head} changes, compared with where it left {@code targetBranch}. */
    public static ChangedFiles proposed(Mirror mirror, String head, String targetBranch) throws IOException {
        try {
            String target = mirror.resolve("refs/heads/" + targetBranch).sha();
            Optional<String> base = mirror.mergeBase(target, head);
            return base.isPresent()
                    ? between(mirror, base.get(), head)
                    : new ChangedFiles.Unknown("the pull request's head has no commit in common with " + targetBranch);
        } catch (CheckoutException e) {
            return new ChangedFiles.Unknown(e.getMessage());
        }
    }

    /** What commit {@code sha} changed against its first parent; a root commit adds every file of its tree. */
    public static ChangedFiles committed(Mirror mirror, String sha) throws IOException {
        try {
            return read(mirror, mirror.firstParent(sha).orElse(null), sha);
        } catch (CheckoutException e) {
            return new ChangedFiles.Unknown(e.getMessage());
        }
    }

    private static ChangedFiles between(Mirror mirror, String from, String to) throws IOException {
        try {
            return read(mirror, from, to);
        } catch (CheckoutException e) {
            return new ChangedFiles.Unknown(e.getMessage());
        }
    }

    private static ChangedFiles read(Mirror mirror, @Nullable String from, String to) throws IOException {
        Optional<List<String>> paths = mirror.changedPaths(from, to, MAX_FILES);
        return paths.<ChangedFiles>map(ChangedFiles.Known::new)
                .orElseGet(() -> new ChangedFiles.Unknown("more than " + MAX_FILES + " files changed"));
    }
}
