package dev.knotless.forge.embedded;

import dev.knotless.forge.ForgeEvent;
import dev.knotless.forge.ForgeException;
import dev.knotless.forge.Repository;
import dev.knotless.forge.RunnerSelection;
import dev.knotless.forge.Cursors;
import dev.knotless.forge.MergeQueue;

import dev.knotless.testkit.FakeClock;
import dev.knotless.testkit.FakeTicker;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.forge.ForgeEvent.PullRequest;
import dev.knotless.forge.ForgeEvent.Push;
import dev.knotless.forge.ForgeEvent.QueueEntry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedForgeTest {

    @TempDir
    Path temp;

    private Path source;
    private FakeClock clock;
    private EmbeddedForge forge;
    private Repository repo;

    @BeforeEach
    void setUp() throws Exception {
        source = temp.resolve("source");
        Files.createDirectories(source);
        git(source, "init", "-q", "-b", "main");
        commit("first");
        clock = new FakeClock();
        forge = new EmbeddedForge(temp.resolve("forge"), Cursors.inMemory(), clock, Duration.ofSeconds(30));
        repo = new Repository("acme/app", source.toString(), "main", List.of("a", "b"), List.of("b"));
        forge.add(repo);
    }

    @Test
    void recordsAreListedReadBackAndRemoved() throws Exception {
        Repository other = new Repository("acme/lib", "/srv/lib.git", "trunk", List.of("a"), List.of());
        forge.add(other);
        assertThat(forge.repositories()).containsExactly(repo, other);
        assertThat(Files.exists(temp.resolve("forge/repos/acme+app.json"))).isTrue();
        assertThat(forge.remove("acme/app")).isTrue();
        assertThat(forge.repositories()).containsExactly(other);
        assertThat(forge.remove("acme/app")).isFalse();
        assertThat(forge.repository("acme/app")).isEmpty();
    }

    @Test
    void addingANameTwiceIsRefused() {
        assertThatThrownBy(() -> forge.add(repo)).isInstanceOf(ForgeException.class)
                .hasMessage("repository acme/app exists; remove it first to change it");
    }

    @Test
    void aBrokenRecordIsReportedWithItsFile() throws Exception {
        Files.writeString(temp.resolve("forge/repos/acme+bad.json"), "{\"name\": \"bad\"}");
        assertThatThrownBy(() -> forge.repositories()).isInstanceOf(ForgeException.class)
                .hasMessageContaining("acme+bad.json").hasMessageContaining("must be owner/name");
    }

    @Test
    void theFirstPollRecordsABaselineAndReportsNothing() throws Exception {
        assertThat(forge.poll(repo)).isEmpty();
        assertThat(forge.poll(repo)).isEmpty();
    }

    @Test
    void aNewCommitIsAPushFromTheOldShaToTheNew() throws Exception {
        String before = head("main");
        forge.poll(repo);
        String after = commit("second");
        assertThat(forge.poll(repo)).containsExactly(new Push("acme/app", "refs/heads/main", before, after));
    }

    @Test
    void aNewBranchIsAPushFromNoCommit() throws Exception {
        forge.poll(repo);
        git(source, "branch", "feature");
        assertThat(forge.poll(repo)).containsExactly(
                new Push("acme/app", "refs/heads/feature", ForgeEvent.NO_COMMIT, head("main")));
    }

    @Test
    void anAcknowledgedEventIsNotReportedAgainButAnUnacknowledgedOneIs() throws Exception {
        forge.poll(repo);
        commit("second");
        List<ForgeEvent> first = forge.poll(repo);
        assertThat(first).hasSize(1);
        assertThat(forge.poll(repo)).isEqualTo(first); // not acknowledged: comes again
        forge.acknowledge(repo, first.getFirst());
        assertThat(forge.poll(repo)).isEmpty();
        assertThat(forge.poll(repo)).isEmpty();
    }

    @Test
    void aPullRefIsAPullRequestWithItsMetadataOrTheDefaults() throws Exception {
        forge.poll(repo);
        String sha = commit("change");
        git(source, "update-ref", "refs/pulls/3/head", sha);
        git(source, "update-ref", "refs/pulls/4/head", sha);
        git(source, "reset", "-q", "--hard", "HEAD~1");
        forge.describePull("acme/app", 4, new EmbeddedForge.PullInfo("release", "alice", true));
        List<ForgeEvent> events = forge.poll(repo);
        assertThat(events).containsExactly(
                new PullRequest("acme/app", 3, sha, "refs/pulls/3/head", "main", "unknown", false),
                new PullRequest("acme/app", 4, sha, "refs/pulls/4/head", "release", "alice", true));
        acknowledgeAll(events);
        assertThat(forge.poll(repo)).isEmpty();

        String moved = commit("more");
        git(source, "update-ref", "refs/pulls/3/head", moved);
        assertThat(forge.poll(repo)).containsExactly(
                new Push("acme/app", "refs/heads/main", head("main~1"), moved),
                new PullRequest("acme/app", 3, moved, "refs/pulls/3/head", "main", "unknown", false));
    }

    @Test
    void hostedForgesPullRefsArePullRequestsWithTheSameCursorsAndMetadata() throws Exception {
        String base = head("main");
        git(source, "update-ref", "refs/pull/5/head", base); // there before the baseline: not reported
        forge.poll(repo);
        String sha = commit("change");
        git(source, "update-ref", "refs/pull/7/head", sha);
        git(source, "update-ref", "refs/merge-requests/12/head", sha);
        git(source, "update-ref", "refs/pull/7/merge", sha); // GitHub's test merge: never a pull request
        git(source, "reset", "-q", "--hard", "HEAD~1");
        forge.describePull("acme/app", 7, new EmbeddedForge.PullInfo("release", "octocat", false));
        List<ForgeEvent> events = forge.poll(repo);
        assertThat(events).containsExactly(
                new PullRequest("acme/app", 7, sha, "refs/pull/7/head", "release", "octocat", false),
                new PullRequest("acme/app", 12, sha, "refs/merge-requests/12/head", "main", "unknown", false));
        acknowledgeAll(events);
        assertThat(forge.poll(repo)).isEmpty();
        // The lander fetches a pull request's head under the spelling it was seen under.
        MergeQueue queue = forge.mergeQueue().orElseThrow();
        assertThat(queue.headRef(repo, 7)).isEqualTo("refs/pull/7/head");
        assertThat(queue.headRef(repo, 12)).isEqualTo("refs/merge-requests/12/head");
        assertThat(queue.headRef(repo, 99)).isEqualTo("refs/pulls/99/head");

        String moved = commit("more");
        git(source, "reset", "-q", "--hard", "HEAD~1");
        git(source, "update-ref", "refs/pull/5/head", moved);
        git(source, "update-ref", "refs/pull/7/merge", moved);
        assertThat(forge.poll(repo)).containsExactly(
                new PullRequest("acme/app", 5, moved, "refs/pull/5/head", "main", "unknown", false));
    }

    @Test
    void oneNumberUnderTwoSpellingsIsOnePullRequestTheEmbeddedSpellingFirst() throws Exception {
        forge.poll(repo);
        String ours = commit("ours");
        String theirs = commit("theirs");
        git(source, "reset", "-q", "--hard", "HEAD~2");
        git(source, "update-ref", "refs/pull/3/head", theirs);
        git(source, "update-ref", "refs/pulls/3/head", ours);
        git(source, "update-ref", "refs/merge-requests/4/head", theirs);
        git(source, "update-ref", "refs/pull/4/head", ours);
        List<ForgeEvent> events = forge.poll(repo);
        assertThat(events).containsExactly(
                new PullRequest("acme/app", 3, ours, "refs/pulls/3/head", "main", "unknown", false),
                new PullRequest("acme/app", 4, ours, "refs/pull/4/head", "main", "unknown", false));
        acknowledgeAll(events);
        assertThat(forge.poll(repo)).as("the other spelling moving is not reported while the first stands").isEmpty();
        git(source, "update-ref", "refs/pull/3/head", ours);
        assertThat(forge.poll(repo)).isEmpty();
    }

    @Test
    void pullHeadsAreOrderedByNumberAndMalformedOnesIgnored() {
        assertThat(EmbeddedForge.pullHeads(List.of("refs/pull/10/head", "refs/pull/9/head", "refs/pull/0/head",
                "refs/pull/01/head", "refs/pull/1234567890/head", "refs/pull/8/merge", "refs/pulls/8/head/x",
                "refs/merge-requests/x/head", "refs/heads/refs/pull/2/head", "refs/remotes/origin/pull/3/head")))
                .containsExactly(java.util.Map.entry(9, "refs/pull/9/head"), java.util.Map.entry(10, "refs/pull/10/head"));
    }

    @Test
    void otherRefsAreNotEvents() throws Exception {
        forge.poll(repo);
        git(source, "tag", "v1");
        git(source, "update-ref", "refs/pulls/x/head", head("main"));
        git(source, "update-ref", "refs/notes/commits", head("main"));
        assertThat(forge.poll(repo)).isEmpty();
    }

    @Test
    void aDeletedBranchMadeAgainIsANewBranch() throws Exception {
        git(source, "branch", "feature");
        forge.poll(repo);
        git(source, "branch", "-D", "feature");
        assertThat(forge.poll(repo)).isEmpty();
        git(source, "branch", "feature");
        assertThat(forge.poll(repo)).containsExactly(
                new Push("acme/app", "refs/heads/feature", ForgeEvent.NO_COMMIT, head("main")));
    }

    @Test
    void queueEntriesAreReportedUntilAcknowledgedAndAgainWhenRequeued() throws Exception {
        forge.poll(repo);
        forge.describePull("acme/app", 7, new EmbeddedForge.PullInfo("release", null, null));
        EmbeddedForge.QueuedPull entry = forge.enqueue("acme/app", 7);
        assertThat(entry.target()).isEqualTo("release");
        assertThat(forge.queue("acme/app")).containsExactly(entry);
        QueueEntry event = new QueueEntry("acme/app", 7, "release", clock.instant());
        assertThat(forge.poll(repo)).containsExactly(event);
        forge.acknowledge(repo, event);
        assertThat(forge.poll(repo)).isEmpty();

        clock.advance(Duration.ofMinutes(1));
        forge.enqueue("acme/app", 7);
        assertThat(forge.poll(repo)).containsExactly(new QueueEntry("acme/app", 7, "release", clock.instant()));
        assertThat(forge.dequeue("acme/app", 7)).isTrue();
        assertThat(forge.poll(repo)).isEmpty();
    }

    @Test
    void queueingForAnUnknownRepositoryIsRefused() {
        assertThatThrownBy(() -> forge.enqueue("acme/none", 1)).isInstanceOf(ForgeException.class)
                .hasMessageStartingWith("no repository acme/none");
    }

    @Test
    void anUnreachableRepositoryFailsWithOneLineNamingIt() {
        Repository gone = new Repository("acme/gone", temp.resolve("nowhere").toString(), "main", List.of("a"), List.of());
        assertThatThrownBy(() -> forge.poll(gone)).isInstanceOf(ForgeException.class)
                .hasMessageStartingWith("could not list the refs of acme/gone: ")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aRemovedRepositoryStartsFromANewBaselineWhenAddedAgain() throws Exception {
        Cursors cursors = Cursors.inMemory();
        EmbeddedForge withCursors = new EmbeddedForge(temp.resolve("forge2"), cursors, clock, Duration.ofSeconds(30));
        withCursors.add(repo);
        withCursors.poll(repo);
        assertThat(cursors.get("acme/app")).isNotEmpty();
        withCursors.remove("acme/app");
        assertThat(cursors.get("acme/app")).isEmpty();
        assertThat(withCursors.repositories()).isEmpty();
    }

    private void acknowledgeAll(List<ForgeEvent> events) throws IOException {
        for (ForgeEvent event : events) {
            forge.acknowledge(repo, event);
        }
    }

    private String commit(String message) throws Exception {
        Files.writeString(source.resolve("file.txt"), message + "\n", StandardCharsets.UTF_8);
        git(source, "add", "file.txt");
        git(source, "-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-q", "-m", message);
        return head("HEAD");
    }

    private String head(String rev) throws Exception {
        return git(source, "rev-parse", rev).strip();
    }

    static String git(Path dir, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of("git", "-c", "commit.gpgsign=false"));
        argv.addAll(List.of(args));
        Process process = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("git " + String.join(" ", args) + ": " + out);
        }
        return out;
    }
}
