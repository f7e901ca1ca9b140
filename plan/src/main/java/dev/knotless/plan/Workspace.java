package dev.knotless.plan;

import dev.knotless.executor.RunLayout;
import org.jspecify.annotations.Nullable;

/**
 * Where a run's steps work: the directory the checkout is in and every step starts in, and the
 * home directory its programs see.
 *
 * <p>Ours is {@link #DEFAULT}: {@code /work}, with the image's own {@code HOME}. GitHub Actions
 * checks out into {@code $GITHUB_WORKSPACE} ({@code /home/runner/work/REPO/REPO}) with {@code
 * HOME=/home/runner}, and actions rely on both (tool caches, {@code ~/.npm}), so its front-end will
 * set them. The run reads them from here rather than from a constant. Executors still make and
 * start in {@link RunLayout#WORK}; a step of a workspace elsewhere changes into it first.
 *
 * @param directory absolute, in its plain form (no {@code .}, {@code ..} or doubled {@code /})
 * @param home {@code HOME} for the steps, absolute; null to keep the image's own
 * @param history whether the checkout's {@code .git} holds the commit's whole history and the tags
 *     in it (GitHub's {@code actions/checkout} with {@code fetch-depth: 0}); otherwise the commit alone
 */
public record Workspace(String directory, @Nullable String home, boolean history) {

    /** Ours: the checkout in {@code /work}, {@code HOME} as the image sets it. */
    public static final Workspace DEFAULT = new Workspace(RunLayout.WORK, null);

    public Workspace {
        directory = RunLayout.absolute(directory);
        home = home == null ? null : RunLayout.absolute(home);
    }

    /** A checkout of the commit alone. */
    public Workspace(String directory, @Nullable String home) {
        this(directory, home, false);
    }

    /** The same workspace, its checkout with the commit's whole history. */
    public Workspace withHistory() {
        return new Workspace(directory, home, true);
    }
}
