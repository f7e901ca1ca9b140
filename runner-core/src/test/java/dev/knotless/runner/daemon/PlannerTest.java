package dev.knotless.runner.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checkout.Mirrors;
import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import dev.knotless.plan.dialects.Dialects;
import dev.knotless.forge.ForgeEvent;
import dev.knotless.forge.PipelineRunNames;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.StateStore;
import dev.knotless.testkit.TestRepo;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PlannerTest {

    @TempDir Path temp;

    TestRepo source;
    Repository repo;
    Mirrors mirrors;

    @BeforeEach
    void setUp() throws Exception {
        source = new TestRepo(temp.resolve("source"))
                .workflow("ci.yaml", "steps: [{run: 'true'}]\n")
                .workflow("pulls.yaml", "on: pull\nsteps: [{run: 'true'}]\n")
                .workflow("mine.yaml", "runners: [a]\nsteps: [{run: 'true'}]\n")
                .workflow("theirs.yaml", "runners: [other]\nsteps: [{run: 'true'}]\n")
                .workflow("release.yaml", "on: {push: {branches: ['release/*']}}\nsteps: [{run: 'true'}]\n");
        repo = new Repository("acme/app", source.dir.toString(), "main", List.of("a", "b"), List.of());
        mirrors = new Mirrors(temp.resolve("state"));
    }

    Planner planner(String runner, boolean pulls) {
        return new Planner(runner, mirrors, pulls, Duration.ofSeconds(30));
    }

    static ForgeEvent.Push push(String branch, String sha) {
        return new ForgeEvent.Push("acme/app", "refs/heads/" + branch, ForgeEvent.NO_COMMIT, sha);
    }

    @Test
    void aPushRunsTheWorkflowsWhoseOnMatchesTheBranchAndWhosePinAllowsThisRunner() throws Exception {
        String sha = source.commit();
        List<QueuedRun> runs = planner("a", false).plan(repo, push("main", sha));
        assertThat(runs).extracting(QueuedRun::workflow).containsExactly("ci", "mine");
        assertThat(runs).allSatisfy(r -> {
            assertThat(r.event()).isEqualTo(Event.PUSH);
            assertThat(r.trust()).isEqualTo(Trust.TRUSTED);
            assertThat(r.commit()).isEqualTo(sha);
            assertThat(r.ref()).isEqualTo("refs/heads/main");
            assertThat(r.runner()).isEqualTo("a");
            assertThat(r.repo()).isEqualTo("acme/app");
        });
        assertThat(planner("b", false).plan(repo, push("main", sha))).extracting(QueuedRun::workflow).containsExactly("ci");
        assertThat(planner("a", false).plan(repo, push("release/1", sha))).extracting(QueuedRun::workflow)
                .containsExactly("ci", "mine", "release");
    }

    @Test
    void aRunnerTheRecordDoesNotNameRunsNothingEvenWhenPinned() throws Exception {
        String sha = source.commit();
        assertThat(planner("other", false).plan(repo, push("main", sha))).isEmpty();
    }

    @Test
    void planningAnEventAgainGivesTheSameIdsSoEnqueueingItAgainAddsNothing() throws Exception {
        String sha = source.commit();
        List<QueuedRun> first = planner("a", false).plan(repo, push("main", sha));
        List<QueuedRun> again = planner("a", false).plan(repo, push("main", sha));
        assertThat(again).isEqualTo(first);
        try (StateStore state = StateStore.open(temp.resolve("db"))) {
            assertThat(state.runs().enqueue(first)).isEqualTo(2);
            assertThat(state.runs().enqueue(again)).isZero();
        }
        List<QueuedRun> otherRunner = planner("b", false).plan(repo, push("main", sha));
        assertThat(otherRunner.getFirst().id()).isNotEqualTo(first.getFirst().id());
        assertThat(first.getFirst().id()).matches("[0-9a-f]{12}-[0-9a-f]{12}").startsWith(sha.substring(0, 12));
    }

    @Test
    void runIdsDependOnRunnerRepositoryWorkflowEventAndCommit() {
        String sha = "a".repeat(40);
        String id = Planner.runId("a", "acme/app", "ci", Event.PUSH, sha);
        assertThat(Planner.runId("a", "acme/app", "ci", Event.PUSH, sha)).isEqualTo(id);
        assertThat(List.of(
                Planner.runId("b", "acme/app", "ci", Event.PUSH, sha),
                Planner.runId("a", "acme/lib", "ci", Event.PUSH, sha),
                Planner.runId("a", "acme/app", "lint", Event.PUSH, sha),
                Planner.runId("a", "acme/app", "ci", Event.PULL, sha),
                Planner.runId("a", "acme/app", "ci", Event.PUSH, "b".repeat(40)))).doesNotContain(id).doesNotHaveDuplicates();
    }

    @Test
    void aPullRequestRunsOnlyWithPullsOnItsTargetBranchAndTrustFollowsTheAuthor() throws Exception {
        source.commit();
        source.git("checkout", "-q", "-b", "topic");
        source.workflow("topic.yaml", "on: {pull: {branches: [main]}}\nsteps: [{run: 'true'}]\n");
        String head = source.commit();
        source.git("checkout", "-q", "main");
        source.git("branch", "-q", "-D", "topic");
        source.git("update-ref", "refs/pulls/7/head", head); // reachable from no branch

        ForgeEvent.PullRequest untrusted = new ForgeEvent.PullRequest("acme/app", 7, head, "refs/pulls/7/head", "main",
                "mallory", false);
        assertThat(planner("a", false).plan(repo, untrusted)).isEmpty();

        List<QueuedRun> runs = planner("a", true).plan(repo, untrusted);
        assertThat(runs).extracting(QueuedRun::workflow).containsExactly("pulls", "topic");
        assertThat(runs).allSatisfy(r -> {
            assertThat(r.event()).isEqualTo(Event.PULL);
            assertThat(r.trust()).isEqualTo(Trust.UNTRUSTED);
            assertThat(r.commit()).isEqualTo(head);
            assertThat(r.ref()).isEqualTo("refs/pulls/7/head");
        });

        ForgeEvent.PullRequest trusted = new ForgeEvent.PullRequest("acme/app", 7, head, "refs/pulls/7/head", "stable",
                "alice", true);
        List<QueuedRun> trustedRuns = planner("a", true).plan(repo, trusted);
        assertThat(trustedRuns).extracting(QueuedRun::workflow).containsExactly("pulls");
        assertThat(trustedRuns.getFirst().trust()).isEqualTo(Trust.TRUSTED);
    }

    @Test
    void aMergeQueueEntryMakesNoRunYet() throws Exception {
        source.commit();
        assertThat(planner("a", true).plan(repo, new ForgeEvent.QueueEntry("acme/app", 3, "main", Instant.EPOCH))).isEmpty();
    }

    @Test
    void aMalformedWorkflowFileIsARunNamedByItsPathAndTheOthersStillRun() throws Exception {
        source.workflow("broken.yaml", "steps:\n  - run: 'true'\n    timeout: soon\n");
        String sha = source.commit();
        List<QueuedRun> runs = planner("a", false).plan(repo, push("main", sha));
        assertThat(runs).extracting(QueuedRun::workflow).containsExactly(".knotless/workflows/broken.yaml", "ci", "mine");
    }

    @Test
    void aPipelineRunsTheWorkflowsItSentNotTheCommitsAndMatchesNoOn() throws Exception {
        String sha = source.commit();
        java.util.Map<String, String> sent = new java.util.LinkedHashMap<>();
        sent.put("build.yml", "when: [{event: push, branch: main}]\nengine: knotless\nsteps: [{run: 'true'}]\n");
        sent.put("matrix.yml", "engine: knotless\nmatrix: {jdk: ['17', '21']}\nsteps: [{run: 'echo ${matrix.jdk}'}]\n");
        sent.put("broken.yml", "engine: knotless\non: push\nsteps: [{run: 'true'}]\n");
        ForgeEvent.Pipeline pipeline = new ForgeEvent.Pipeline("acme/app", "knot.test/3lx", Event.PUSH, sha,
                "refs/heads/feature", "feature", true, "tangled", sent, java.util.Map.of());

        List<QueuedRun> runs = planner("a", false).plan(repo, pipeline);

        assertThat(runs).extracting(QueuedRun::workflow)
                .containsExactlyInAnyOrder("broken.yml", "build.yml", "matrix.yml (jdk=17)", "matrix.yml (jdk=21)");
        QueuedRun build = runs.stream().filter(r -> r.workflow().equals("build.yml")).findFirst().orElseThrow();
        assertThat(build.supplied()).isNotNull();
        assertThat(build.supplied().text()).isEqualTo(sent.get("build.yml"));
        assertThat(build.supplied().dialect()).isEqualTo(Dialects.named("tangled"));
        assertThat(build.ref()).isEqualTo("refs/heads/feature");
        assertThat(build.trust()).isEqualTo(Trust.TRUSTED);
        QueuedRun broken = runs.stream().filter(r -> r.workflow().equals("broken.yml")).findFirst().orElseThrow();
        assertThat(broken.supplied().text()).isEqualTo(sent.get("broken.yml"));
        // the same pipeline twice is the same runs; another pipeline at the same commit runs again
        assertThat(planner("a", false).plan(repo, pipeline)).extracting(QueuedRun::id)
                .containsExactlyElementsOf(runs.stream().map(QueuedRun::id).toList());
        ForgeEvent.Pipeline again = new ForgeEvent.Pipeline("acme/app", "knot.test/3ly", Event.PUSH, sha,
                "refs/heads/feature", "feature", true, "tangled", sent, java.util.Map.of());
        assertThat(planner("a", false).plan(repo, again)).extracting(QueuedRun::id).doesNotContainAnyElementsOf(
                runs.stream().map(QueuedRun::id).toList());
    }

    @Test
    void anUntrustedPipelineMakesUntrustedRuns() throws Exception {
        String sha = source.commit();
        ForgeEvent.Pipeline pull = new ForgeEvent.Pipeline("acme/app", "knot.test/3lz", Event.PULL, sha,
                "refs/heads/topic", "main", false, "tangled", java.util.Map.of("ci.yml", "steps: [{run: 'true'}]\n"),
                java.util.Map.of());
        assertThat(planner("a", false).plan(repo, pull)).singleElement()
                .satisfies(r -> assertThat(r.trust()).isEqualTo(Trust.UNTRUSTED));
    }

    /**
     * What the spindle tells its statuses for is what the daemon queues: the seam's run names of a
     * pipeline are the ids and workflows of the runs planned for it, in order, and the ids take the
     * pipeline's id in (the spindle once worked these out itself, and asserted them so).
     */
    @Test
    void thePipelineRunNamesAreThePlannedRunsIds() throws Exception {
        String sha = source.commit();
        java.util.Map<String, String> sent = new java.util.LinkedHashMap<>();
        sent.put("build.yml", "engine: knotless\nsteps: [{run: 'true'}]\n");
        sent.put("matrix.yml", "engine: knotless\nmatrix: {jdk: ['17', '21']}\nsteps: [{run: 'echo ${matrix.jdk}'}]\n");
        sent.put("broken.yml", "engine: knotless\non: push\nsteps: [{run: 'true'}]\n");
        ForgeEvent.Pipeline pipeline = new ForgeEvent.Pipeline("acme/app", "knot.test/3lpipe", Event.PUSH, sha,
                "refs/heads/main", "main", true, "tangled", sent, java.util.Map.of());

        List<QueuedRun> runs = planner("a", false).plan(repo, pipeline);

        assertThat(Planner.runNames("a").of(pipeline)).containsExactlyElementsOf(runs.stream()
                .map(r -> new PipelineRunNames.RunName(r.workflow(), r.id())).toList());
        assertThat(Planner.runNames("a").of(pipeline)).contains(new PipelineRunNames.RunName("build.yml",
                Planner.runId("a", "acme/app", "build.yml", Event.PUSH, sha, List.of("knot.test/3lpipe"))));
    }

    @Test
    void aRepositoryWithOnlyGithubWorkflowsIsPlannedFromThemOneRunAJobAndOursWinWhereBothAre() throws Exception {
        TestRepo github = new TestRepo(temp.resolve("github"))
                .file(".github/workflows/ci.yml", """
                        name: CI
                        on: [push]
                        jobs:
                          build: {runs-on: linux, steps: [{run: make}]}
                          test: {needs: build, runs-on: linux, steps: [{run: make test}]}
                        """)
                .file(".github/workflows/pulls.yml", "on: pull_request\njobs: {j: {runs-on: x, steps: [{run: 'true'}]}}\n");
        Repository ghRepo = new Repository("acme/gh", github.dir.toString(), "main", List.of("a"), List.of());
        String sha = github.commit();
        assertThat(planner("a", false).plan(ghRepo, push("main", sha))).extracting(QueuedRun::workflow)
                .containsExactly("CI / build", "CI / test");

        github.workflow("native.yaml", "steps: [{run: 'true'}]\n");
        String both = github.commit();
        assertThat(planner("a", false).plan(ghRepo, push("main", both))).extracting(QueuedRun::workflow)
                .containsExactly("native");
    }

    @Test
    void pathFiltersSeeWhatAPushANewBranchAndAPullRequestChangedAndRunWhenThatIsNotKnown() throws Exception {
        TestRepo github = new TestRepo(temp.resolve("paths"))
                .file(".github/workflows/app.yml", """
                        name: app
                        on:
                          push: {paths: ['src/**']}
                          pull_request: {paths-ignore: ['docs/**']}
                        jobs: {build: {runs-on: linux, steps: [{run: make}]}}
                        """)
                .file(".github/workflows/all.yml", "name: all\non: [push, pull_request]\njobs: {j: {runs-on: x, steps: [{run: 'true'}]}}\n")
                .file("src/App.java", "class App {}\n");
        Repository ghRepo = new Repository("acme/paths", github.dir.toString(), "main", List.of("a"), List.of());
        String first = github.commit();
        String docs = github.file("docs/guide.md", "how\n").commit();
        String code = github.file("src/App.java", "class App { int x; }\n").commit();
        Planner planner = planner("a", true);

        assertThat(planner.plan(ghRepo, new ForgeEvent.Push("acme/paths", "refs/heads/main", first, docs)))
                .extracting(QueuedRun::workflow).containsExactly("all / j");
        assertThat(planner.plan(ghRepo, new ForgeEvent.Push("acme/paths", "refs/heads/main", docs, code)))
                .extracting(QueuedRun::workflow).containsExactly("all / j", "app / build");
        assertThat(planner.plan(ghRepo, new ForgeEvent.Push("acme/paths", "refs/heads/main", first, code)))
                .as("every commit the push brought counts").extracting(QueuedRun::workflow).containsExactly("all / j", "app / build");
        assertThat(planner.plan(ghRepo, new ForgeEvent.Push("acme/paths", "refs/heads/main", ForgeEvent.NO_COMMIT, first)))
                .as("the default branch's first push: nothing to compare with").extracting(QueuedRun::workflow)
                .containsExactly("all / j", "app / build");

        // a new branch is compared with where it left main, whatever main did since
        github.git("checkout", "-q", "-b", "docs-only", docs);
        String onBranch = github.file("docs/more.md", "more\n").commit();
        github.git("checkout", "-q", "main");
        assertThat(planner.plan(ghRepo, new ForgeEvent.Push("acme/paths", "refs/heads/docs-only", ForgeEvent.NO_COMMIT, onBranch)))
                .extracting(QueuedRun::workflow).containsExactly("all / j");

        // a pull request: its head against where it left its target (three dots), main's own changes aside
        github.git("update-ref", "refs/pulls/3/head", onBranch);
        ForgeEvent.PullRequest docsPull = new ForgeEvent.PullRequest("acme/paths", 3, onBranch, "refs/pulls/3/head", "main",
                "alice", true);
        assertThat(planner.plan(ghRepo, docsPull)).extracting(QueuedRun::workflow).containsExactly("all / j");
        github.git("checkout", "-q", "-b", "fix", docs);
        String fix = github.file("src/Fix.java", "class Fix {}\n").commit();
        github.git("checkout", "-q", "main");
        github.git("update-ref", "refs/pulls/4/head", fix);
        assertThat(planner.plan(ghRepo, new ForgeEvent.PullRequest("acme/paths", 4, fix, "refs/pulls/4/head", "main", "alice", true)))
                .extracting(QueuedRun::workflow).containsExactly("all / j", "app / build");
        assertThat(planner.plan(ghRepo, new ForgeEvent.PullRequest("acme/paths", 3, onBranch, "refs/pulls/3/head", "gone",
                "alice", true))).as("a target the mirror lacks: not known, so it runs").extracting(QueuedRun::workflow)
                .containsExactly("all / j", "app / build");
    }
}
