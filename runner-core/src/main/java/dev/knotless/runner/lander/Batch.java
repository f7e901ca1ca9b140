package dev.knotless.runner.lander;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A merge-queue batch: the target branch's tip with queued pull requests merged onto it in queue
 * order, one merge commit each.
 *
 * @param target the branch name it lands on
 * @param base the target's tip it was built on
 * @param pulls the pull requests it holds, in merge order
 * @param commits the commit after each merge: {@code commits.get(i)} holds {@code pulls[0..i]}, so
 *     every prefix of the batch is a commit of it, which is what bisection tests
 */
public record Batch(String repo, String target, String base, List<Pull> pulls, List<String> commits) {

    /** A queued pull request at the head the batch merged. */
    public record Pull(int number, String head) {}

    public Batch {
        Objects.requireNonNull(repo, "repo");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(base, "base");
        pulls = List.copyOf(pulls);
        commits = List.copyOf(commits);
        if (pulls.size() != commits.size()) {
            throw new IllegalArgumentException(pulls.size() + " pull requests but " + commits.size() + " commits");
        }
    }

    /** The commit holding every pull request of the batch; the base when it holds none. */
    public String commit() {
        return commits.isEmpty() ? base : commits.getLast();
    }

    /** The batch of the first {@code n} pull requests. */
    public Batch prefix(int n) {
        return new Batch(repo, target, base, pulls.subList(0, n), commits.subList(0, n));
    }

    /** {@code main@1a2b3c4d5e6f+#1+#3}: for log lines and reasons. */
    public String describe() {
        return target + "@" + base.substring(0, 12)
                + pulls.stream().map(p -> "+#" + p.number()).collect(Collectors.joining());
    }
}
