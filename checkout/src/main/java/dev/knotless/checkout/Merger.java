package dev.knotless.checkout;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Writes merge commits into a mirror and pushes them to its source: what the merge-queue lander
 * needs of git. Merges are made without a work tree ({@code git merge-tree --write-tree}, then
 * {@code git commit-tree}), so they never disturb the mirror's refs or a concurrent fetch. Author
 * and committer dates are the caller's, so the same merge made twice (after a restart) is the same
 * commit.
 *
 * <p>Stateless apart from the mirror; safe from any thread, though one lander per mirror is the
 * intended use.
 *
 * @param mirror the mirror merges are written into and pushed from
 * @param name the author and committer of merge commits
 * @param email their e-mail address
 */
public record Merger(Mirror mirror, String name, String email) {

    /** What merging a head onto a base gave. */
    public sealed interface Merge {
        /** A merge commit with the base as first parent and the head as second. */
        record Merged(String sha) implements Merge {}

        /** The head is in the base already: nothing to merge. */
        record AlreadyIn() implements Merge {}

        /** The head does not merge cleanly; {@code files} are the conflicting paths, comma-separated. */
        record Conflict(String files) implements Merge {}
    }

    /** What a push gave. */
    public sealed interface Push {
        record Pushed() implements Push {}

        /** The branch is not where the pushed commit's history expects it: it moved meanwhile. */
        record Moved(String why) implements Push {}
    }

    public Merger {
        Objects.requireNonNull(mirror, "mirror");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(email, "email");
    }

    /** Whether commit {@code ancestor} is in the history of {@code descendant}. */
    public boolean isAncestor(String ancestor, String descendant) throws IOException {
        Git.Result result = Git.run(mirror.path(), Git.LOCAL_TIMEOUT,
                List.of("merge-base", "--is-ancestor", "--end-of-options", sha(ancestor), sha(descendant)));
        if (result.exitCode() > 1) {
            throw new CheckoutException("could not compare " + ancestor + " and " + descendant + " in " + mirror.repo()
                    + ": " + Git.oneLine(result.stderr()));
        }
        return result.ok();
    }

    /**
     * Merges {@code head} onto {@code base}; always a merge commit (never a fast-forward), so the
     * target's first-parent history is one commit per landed pull request.
     */
    public Merge merge(String base, String head, String message, Instant when) throws IOException {
        if (isAncestor(head, base)) {
            return new Merge.AlreadyIn();
        }
        Git.Result tree = Git.run(mirror.path(), Git.LOCAL_TIMEOUT,
                List.of("merge-tree", "--write-tree", "--no-messages", "--name-only", sha(base), sha(head)));
        if (tree.exitCode() == 1) {
            String[] lines = tree.text().split("\n");
            List<String> files = new ArrayList<>();
            for (int i = 1; i < lines.length; i++) {
                if (!lines[i].isBlank() && !files.contains(lines[i])) {
                    files.add(lines[i]);
                }
            }
            return new Merge.Conflict(String.join(", ", files));
        }
        if (!tree.ok()) {
            throw new CheckoutException("could not merge " + head + " onto " + base + " in " + mirror.repo() + ": "
                    + Git.oneLine(tree.stderr()));
        }
        String treeSha = tree.text().lines().findFirst().orElse("").strip();
        String date = "@" + when.getEpochSecond() + " +0000";
        Git.Result commit = Git.run(mirror.path(), Git.LOCAL_TIMEOUT,
                List.of("commit-tree", treeSha, "-p", sha(base), "-p", sha(head), "-m", message),
                Map.of("GIT_AUTHOR_NAME", name, "GIT_AUTHOR_EMAIL", email, "GIT_AUTHOR_DATE", date,
                        "GIT_COMMITTER_NAME", name, "GIT_COMMITTER_EMAIL", email, "GIT_COMMITTER_DATE", date));
        if (!commit.ok() || !Mirror.SHA.matcher(commit.text()).matches()) {
            throw new CheckoutException("could not write the merge of " + head + " onto " + base + " in " + mirror.repo()
                    + ": " + Git.oneLine(commit.stderr()));
        }
        return new Merge.Merged(commit.text());
    }

    /** When commit {@code sha} was committed, to the second. */
    public Instant committed(String sha) throws IOException {
        Git.Result result = Git.run(mirror.path(), Git.LOCAL_TIMEOUT, List.of("show", "-s", "--format=%ct", sha(sha)));
        if (!result.ok() || !result.text().strip().matches("[0-9]+")) {
            throw new CheckoutException("commit " + sha + " not found in " + mirror.repo());
        }
        return Instant.ofEpochSecond(Long.parseLong(result.text().strip()));
    }

    /** Keeps {@code sha} reachable in the mirror under {@code ref} (outside branches and tags). */
    public void pin(String ref, String sha) throws IOException {
        if (!ref.startsWith("refs/knotless/") || !Mirror.isRefName(ref)) {
            throw new IllegalArgumentException("not a runner ref: " + ref);
        }
        Git.Result result = Git.run(mirror.path(), Git.LOCAL_TIMEOUT, List.of("update-ref", ref, sha(sha)));
        if (!result.ok()) {
            throw new CheckoutException("could not keep " + sha + " in " + mirror.repo() + ": " + Git.oneLine(result.stderr()));
        }
    }

    /**
     * Pushes commit {@code sha} to branch {@code branch} of the source, never forcing: a branch that
     * is not an ancestor of {@code sha} any more gives {@link Push.Moved}.
     *
     * @throws CheckoutException when the source refuses for another reason (no permission, a hook)
     */
    public Push push(String sha, String branch) throws IOException {
        String ref = "refs/heads/" + branch;
        if (!Mirror.isRefName(ref)) {
            throw new IllegalArgumentException("not a branch name: " + branch);
        }
        Source source = mirror.source();
        Git.Result push = Git.run(mirror.path(), Git.LOCAL_TIMEOUT,
                List.of("push", "--porcelain", "--", source.remote().url(), sha(sha) + ":" + ref), source.remote());
        if (push.ok()) {
            return new Push.Pushed();
        }
        String out = push.text();
        if (out.contains("[rejected]") && (out.contains("fetch first") || out.contains("non-fast-forward"))) {
            return new Push.Moved(branch + " of " + source.display() + " moved");
        }
        throw new CheckoutException("could not push to " + branch + " of " + source.display() + ": "
                + source.scrub(Git.oneLine(push.stderr() + "\n" + out)));
    }

    private static String sha(String sha) {
        if (sha == null || !Mirror.SHA.matcher(sha).matches()) {
            throw new IllegalArgumentException("not a full commit sha: '" + sha + "'");
        }
        return sha;
    }
}
