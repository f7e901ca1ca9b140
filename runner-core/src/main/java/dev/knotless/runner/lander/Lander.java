package dev.knotless.runner.lander;

import dev.knotless.checkout.CheckoutException;
import dev.knotless.checkout.Merger;
import dev.knotless.checkout.Mirror;
import dev.knotless.checkout.Mirrors;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckSubject;
import dev.knotless.checks.Event;
import dev.knotless.checks.ExecutorName;
import dev.knotless.executor.Trust;
import dev.knotless.forge.MergeQueue;
import dev.knotless.forge.Repository;
import dev.knotless.runner.run.record.CheckRecorder;
import dev.knotless.runner.state.MergeQueueRows;
import dev.knotless.runner.state.QueueRow;
import dev.knotless.runner.state.QueueState;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.RunQueue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The merge-queue lander of one runner: takes the queued pull requests of a repository's target
 * branch, merges them in queue order onto the target's tip as a {@link Batch}, has the batch's
 * workflows run (event {@code batch}, untrusted) and, when they pass, pushes the batch commit to the
 * target without force. A failing batch is bisected to its first failing prefix; the pull request
 * that makes it fail is rejected with a failing check on its head, the passing prefix lands, and the
 * rest waits for the next batch. A target that moved during the test makes the push fail; those
 * pull requests are tested again on the new tip. See {@code docs/design/lander.md}.
 *
 * <p>The queue's state is the state store's ({@link MergeQueueRows}: ({@code queued → testing → landed | rejected});
 * every change is durable before the next step. After a restart, entries left {@code testing} are
 * taken again: the same tip and heads give the same batch commit (merge dates come from the tip), so
 * the same runs, and a pull request whose head is in the target already counts as landed, never
 * twice.
 *
 * <h2>Concurrency</h2>
 * One thread calls {@link #landOnce}; one lander per repository (the record's lander runner).
 */
public final class Lander {

    /** Pull requests tested in one batch at most; the rest wait for the next. */
    public static final int MAX_BATCH = 16;

    /** The workflow name of the checks that reject pull requests. */
    public static final String CHECK_WORKFLOW = "merge-queue";

    private final String runnerId;
    private final Mirrors mirrors;
    private final RunQueue runs;
    private final MergeQueueRows state;
    private final MergeQueue queue;
    private final BatchTester tester;
    private final CheckRecorder checks;
    private final Consumer<String> log;
    private final Clock clock;

    /**
     * @param runs where rejections are recorded as final runs
     * @param state the merge queue's rows
     * @param checks records the rejections' checks
     */
    public Lander(String runnerId, Mirrors mirrors, RunQueue runs, MergeQueueRows state, MergeQueue queue,
            BatchTester tester, CheckRecorder checks, Consumer<String> log, Clock clock) {
        this.runnerId = Objects.requireNonNull(runnerId, "runnerId");
        this.mirrors = Objects.requireNonNull(mirrors, "mirrors");
        this.runs = Objects.requireNonNull(runs, "runs");
        this.state = Objects.requireNonNull(state, "state");
        this.queue = Objects.requireNonNull(queue, "queue");
        this.tester = Objects.requireNonNull(tester, "tester");
        this.checks = Objects.requireNonNull(checks, "checks");
        this.log = Objects.requireNonNull(log, "log");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Tests and lands one batch of {@code repo}'s queue: the oldest open entry's target branch, its
     * open entries in queue order, at most {@link #MAX_BATCH}. Empty when nothing waits.
     */
    public List<Outcome> landOnce(Repository repo) throws IOException {
        List<QueueRow> open = state.queue(repo.name()).stream().filter(r -> !r.state().isFinal()).toList();
        if (open.isEmpty()) {
            return List.of();
        }
        String target = open.getFirst().target();
        List<QueueRow> rows = open.stream().filter(r -> r.target().equals(target)).limit(MAX_BATCH).toList();
        List<Outcome> outcomes = new ArrayList<>();
        Mirror mirror = fetch(repo, rows, outcomes);
        String tip;
        try {
            tip = mirror.resolve("refs/heads/" + target).sha();
        } catch (CheckoutException e) {
            for (QueueRow row : rows) {
                outcomes.add(reject(repo, mirror, row.number(), row.headSha(), null,
                        "target branch " + target + " does not exist in " + repo.name()));
            }
            return outcomes;
        }
        Merger merger = new Merger(mirror, "knotless-run", runnerId + "@knotless-run.invalid");
        Batch batch = build(repo, mirror, merger, target, tip, rows, outcomes);
        if (batch.pulls().isEmpty()) {
            return outcomes;
        }
        merger.pin("refs/knotless/batches/" + target, batch.commit());
        log.accept(repo.name() + " batch " + batch.describe() + " (" + batch.commit().substring(0, 12) + ") testing");
        switch (tester.test(repo, batch)) {
            case BatchTester.Verdict.Stopped stopped -> requeue(repo, batch.pulls());
            case BatchTester.Verdict.Passed passed -> outcomes.add(land(repo, merger, batch));
            case BatchTester.Verdict.Failed failed -> bisect(repo, mirror, merger, batch, failed.why(), outcomes);
        }
        return outcomes;
    }

    /**
     * Brings the mirror up to date with the heads of {@code rows}. A head that cannot be fetched
     * rejects its pull request (and leaves it out of {@code rows}' batch).
     */
    private Mirror fetch(Repository repo, List<QueueRow> rows, List<Outcome> outcomes) throws IOException {
        List<String> refs = rows.stream().map(r -> queue.headRef(repo, r.number())).toList();
        try {
            return mirrors.mirrorFor(repo.cloneUrl(), refs);
        } catch (CheckoutException all) {
            // Find which head is missing: one fetch each.
            Mirror mirror = mirrors.mirrorFor(repo.cloneUrl());
            for (QueueRow row : rows) {
                try {
                    mirrors.mirrorFor(repo.cloneUrl(), List.of(queue.headRef(repo, row.number())));
                } catch (CheckoutException e) {
                    outcomes.add(reject(repo, mirror, row.number(), row.headSha(), null,
                            "its head " + queue.headRef(repo, row.number()) + " cannot be fetched: " + e.getMessage()));
                }
            }
            return mirror;
        }
    }

    /** Merges the open rows onto the tip in order; conflicts are rejected, heads already in the target land. */
    private Batch build(Repository repo, Mirror mirror, Merger merger, String target, String tip, List<QueueRow> rows,
            List<Outcome> outcomes) throws IOException {
        Instant when = merger.committed(tip);
        List<Batch.Pull> pulls = new ArrayList<>();
        List<String> commits = new ArrayList<>();
        String at = tip;
        for (QueueRow row : rows) {
            if (outcomes.stream().anyMatch(o -> o instanceof Outcome.Rejected r && r.pull() == row.number())) {
                continue;
            }
            String head = mirror.resolve(queue.headRef(repo, row.number())).sha();
            if (merger.isAncestor(head, tip)) {
                state.moveQueue(repo.name(), row.number(), QueueState.LANDED, head, "already in " + target);
                queue.remove(repo, row.number());
                log.accept(repo.name() + " #" + row.number() + " landed: its head is in " + target + " already");
                outcomes.add(new Outcome.Landed(List.of(row.number()), tip));
                continue;
            }
            Merger.Merge merge = merger.merge(at, head, "Merge pull request #" + row.number() + " into " + target, when);
            switch (merge) {
                case Merger.Merge.AlreadyIn in -> {
                    // An earlier pull request of the batch holds it (stacked, or the same commit):
                    // it rides along, landing or failing with the batch, without a merge of its own.
                    state.moveQueue(repo.name(), row.number(), QueueState.TESTING, head, null);
                    pulls.add(new Batch.Pull(row.number(), head));
                    commits.add(at);
                }
                case Merger.Merge.Conflict conflict -> outcomes.add(reject(repo, mirror, row.number(), head, tip,
                        "does not merge onto " + target + "@" + tip.substring(0, 12)
                                + (conflict.files().isEmpty() ? "" : ": conflict in " + conflict.files())));
                case Merger.Merge.Merged merged -> {
                    state.moveQueue(repo.name(), row.number(), QueueState.TESTING, head, null);
                    pulls.add(new Batch.Pull(row.number(), head));
                    commits.add(merged.sha());
                    at = merged.sha();
                }
            }
        }
        return new Batch(repo.name(), target, tip, pulls, commits);
    }

    /**
     * Finds the first failing prefix of a failing batch by halving (the tip alone is taken to pass):
     * its last pull request is the culprit. The passing prefix before it lands; the pull requests
     * after it wait for the next batch, which tests them without the culprit.
     */
    private void bisect(Repository repo, Mirror mirror, Merger merger, Batch batch, String why, List<Outcome> outcomes)
            throws IOException {
        int passing = 0;
        int failing = batch.pulls().size();
        String failure = why;
        while (failing - passing > 1) {
            int mid = (passing + failing) / 2;
            Batch half = batch.prefix(mid);
            log.accept(repo.name() + " batch " + batch.describe() + " failed; testing " + half.describe() + " ("
                    + half.commit().substring(0, 12) + ")");
            switch (tester.test(repo, half)) {
                case BatchTester.Verdict.Stopped stopped -> {
                    requeue(repo, batch.pulls());
                    return;
                }
                case BatchTester.Verdict.Passed passed -> passing = mid;
                case BatchTester.Verdict.Failed failed -> {
                    failing = mid;
                    failure = failed.why();
                }
            }
        }
        Batch.Pull culprit = batch.pulls().get(failing - 1);
        Batch failed = batch.prefix(failing);
        outcomes.add(reject(repo, mirror, culprit.number(), culprit.head(), batch.base(),
                "batch " + failed.describe() + " failed: " + failure));
        requeue(repo, batch.pulls().subList(failing, batch.pulls().size()));
        if (passing > 0) {
            outcomes.add(land(repo, merger, batch.prefix(passing)));
        }
    }

    /** Pushes the batch commit; a target that moved sends the pull requests back to the queue. */
    private Outcome land(Repository repo, Merger merger, Batch batch) throws IOException {
        List<Integer> numbers = batch.pulls().stream().map(Batch.Pull::number).toList();
        switch (merger.push(batch.commit(), batch.target())) {
            case Merger.Push.Moved moved -> {
                requeue(repo, batch.pulls());
                log.accept(repo.name() + " batch " + batch.describe() + " passed but " + moved.why()
                        + "; testing again on the new tip");
                return new Outcome.Retry(numbers, moved.why());
            }
            case Merger.Push.Pushed pushed -> {
                String detail = "landed on " + batch.target() + " as " + batch.commit().substring(0, 12);
                for (Batch.Pull pull : batch.pulls()) {
                    state.moveQueue(repo.name(), pull.number(), QueueState.LANDED, pull.head(), detail);
                    queue.remove(repo, pull.number());
                }
                log.accept(repo.name() + " batch " + batch.describe() + " " + detail);
                return new Outcome.Landed(numbers, batch.commit());
            }
        }
    }

    /** Records a failing check on the pull request's head, marks it rejected and takes it out of the queue. */
    private Outcome reject(Repository repo, Mirror mirror, int number, String head, String tip, String reason)
            throws IOException {
        String ref = queue.headRef(repo, number);
        if (head != null) {
            Instant now = clock.instant();
            String id = head.substring(0, 12) + "-" + hash(runnerId, repo.name(), Integer.toString(number), head,
                    tip == null ? "" : tip, reason);
            Check check = Check.failure(new CheckSubject(id, mirror.repo(), head, ref, CHECK_WORKFLOW, Event.BATCH,
                    runnerId, ExecutorName.NONE), now, "rejected from the merge queue: " + reason);
            QueuedRun rejected = new QueuedRun(id, repo.name(), head, ref, CHECK_WORKFLOW, Event.BATCH, Trust.UNTRUSTED, runnerId);
            checks.record(check, c -> {
                runs.record(rejected, c);
                return true; // a row there already is this rejection, recorded before a restart: told again
            });
        }
        state.moveQueue(repo.name(), number, QueueState.REJECTED, head, reason);
        queue.remove(repo, number);
        log.accept(repo.name() + " #" + number + " rejected: " + reason);
        return new Outcome.Rejected(number, reason);
    }

    private void requeue(Repository repo, List<Batch.Pull> pulls) throws IOException {
        for (Batch.Pull pull : pulls) {
            state.moveQueue(repo.name(), pull.number(), QueueState.QUEUED, pull.head(), null);
        }
    }

    private static String hash(String... parts) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (String part : parts) {
                digest.update(part.getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
            }
            return HexFormat.of().formatHex(digest.digest(), 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
