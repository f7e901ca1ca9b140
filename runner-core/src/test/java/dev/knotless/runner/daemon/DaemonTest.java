package dev.knotless.runner.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.cache.CacheStore;
import dev.knotless.checkout.Mirror;
import dev.knotless.checkout.Mirrors;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.CheckStore;
import dev.knotless.checks.Event;
import dev.knotless.checks.SpaceReserve;
import dev.knotless.executor.Executor;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Resumption;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.SweepReport;
import dev.knotless.executor.Trust;
import dev.knotless.forge.Repository;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.runner.run.Run;
import dev.knotless.runner.run.record.CheckRecorder;
import dev.knotless.runner.run.record.RunListener;
import dev.knotless.runner.run.recovery.RunJournal;
import dev.knotless.runner.run.recovery.RunProgress;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.state.Filter;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.StateStore;
import dev.knotless.secrets.SecretStore;
import dev.knotless.testkit.TestRepo;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop without Docker: an executor that makes no environment, so every run that reaches it
 * ends {@code error} with its reason. What the daemon queues, acknowledges, records and recovers is real.
 */
class DaemonTest {

    /** Makes nothing; records sweeps; looks for earlier environments with {@link #resumption}, when set. */
    static final class RefusingExecutor implements Executor {
        final List<String> swept = new CopyOnWriteArrayList<>();
        volatile Resumption resumption;

        @Override
        public Optional<Resumption> resumption() {
            return Optional.ofNullable(resumption);
        }

        @Override
        public String name() {
            return "refusing";
        }

        @Override
        public dev.knotless.executor.UntrustedNetwork untrustedNetwork() {
            return dev.knotless.executor.UntrustedNetwork.NO_INTERFACE;
        }

        @Override
        public Session start(RunSpec spec, StopSignal signal) throws ExecutorException {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "no environments here");
        }

        @Override
        public SweepReport sweep(String runnerId, Set<String> goingRuns) {
            swept.add(runnerId);
            return new SweepReport(List.of(), List.of());
        }
    }

    @TempDir Path temp;

    TestRepo source;
    StateStore state;
    EmbeddedForge forge;
    RefusingExecutor executor = new RefusingExecutor();
    List<String> lines = new CopyOnWriteArrayList<>();
    Daemon daemon;

    @BeforeEach
    void setUp() throws Exception {
        source = new TestRepo(temp.resolve("source")).workflow("ci.yaml", "steps: [{run: 'true'}]\n");
        source.commit();
        state = StateStore.open(temp.resolve("state"));
        forge = new EmbeddedForge(temp.resolve("state/forge"), state.cursors());
        forge.add(new Repository("acme/app", source.dir.toString(), "main", List.of("a"), List.of()));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (daemon != null) {
            daemon.stop(Duration.ofSeconds(5));
        }
        state.close();
    }

    Daemon daemon() {
        Path dir = temp.resolve("state");
        Run run = new Run(executor, recorder(dir), SecretStore.inMemory(),
                new CacheStore(dir.resolve("cache"), 1L << 30, Clock.systemUTC()), RunListener.NONE, RunLimits.DEFAULT,
                RunJournal.NONE, Clock.systemUTC());
        Daemon.Settings settings = new Daemon.Settings("a", /* discover= */ true, Set.of(), /* pulls= */ false, 2,
                Duration.ofMillis(100), "debian:bookworm-slim");
        return new Daemon(settings, forge, state, new Mirrors(dir), run, executor, recorder(dir), lines::add,
                Clock.systemUTC());
    }

    /** The one recorder of the daemon and its runs: check files, state rows, the forge's publisher. */
    CheckRecorder recorder(Path dir) {
        return new CheckRecorder(new CheckStore(dir), state.runs(), forge.publisher(), lines::add);
    }

    /** Waits until {@code condition}; 20 s only catch a hang, and then say what the daemon last did. */
    void await(String what, BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(20);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("gave up after 20 s waiting until " + what + "; the runs: " + runs()
                        + "; the daemon's lines: " + lines);
            }
            Thread.sleep(50);
        }
    }

    List<RunRecord> runs() {
        try {
            return state.runs().runs(new Filter(null, null, 100));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    boolean baselined() {
        return baselined("acme/app");
    }

    boolean baselined(String repo) {
        try {
            return state.cursors().get(repo).containsKey("@baseline");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aPushIsQueuedAcknowledgedRunAndRecordedAndABrokenWorkflowIsAnErrorNamingItsLine() throws Exception {
        daemon = daemon();
        daemon.start();
        await("the first poll took the baseline", this::baselined);
        source.workflow("broken.yaml", "steps:\n  - run: 'true'\n    timeout: soon\n");
        String sha = source.commit();
        await("both runs are final", () -> runs().size() == 2 && runs().stream().allMatch(r -> r.status().isFinal()));

        RunRecord ci = runs().stream().filter(r -> r.workflow().equals("ci")).findFirst().orElseThrow();
        assertThat(ci.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(ci.reason()).contains("no environments here");
        assertThat(ci.commit()).isEqualTo(sha);
        assertThat(ci.event()).isEqualTo(Event.PUSH);
        RunRecord broken = runs().stream().filter(r -> r.workflow().endsWith("broken.yaml")).findFirst().orElseThrow();
        assertThat(broken.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(broken.reason()).startsWith(".knotless/workflows/broken.yaml:3:").contains("field 'steps[0].timeout'");
        assertThat(state.cursors().get("acme/app")).containsEntry("refs/heads/main", sha);

        Thread.sleep(400); // several more polls: the acknowledged push comes no more
        assertThat(runs()).hasSize(2);
        assertThat(lines).anyMatch(l -> l.contains("acme/app push refs/heads/main@" + sha.substring(0, 12) + ": 2 run(s)"));
        assertThat(lines).anyMatch(l -> l.contains(ci.id() + " started"));
    }

    /**
     * A GitHub job's {@code if} in the daemon: a false one ends the run {@code skipped} without
     * asking the executor, what needs it is skipped too, and a {@code failure()} job is taken
     * once the job it needs failed (here every environment is refused: an error counts as failed).
     */
    @Test
    void aJobsConditionIsDecidedBeforeItsRunAndAFailureJobRunsAfterItsNeedFailed() throws Exception {
        TestRepo gh = new TestRepo(temp.resolve("gh")).file("README.md", "gh\n");
        gh.commit();
        forge.add(new Repository("acme/gh", gh.dir.toString(), "main", List.of("a"), List.of()));
        String repoName = dev.knotless.checkout.Mirrors.repoName(gh.dir.toString());
        state.settings().put(repoName, "deploy", "yes");
        state.settings().declare(repoName, "staging", List.of("main"));
        state.settings().put(repoName, "staging", "deploy", "staging");
        state.settings().declare(repoName, "production", List.of("release/*"));
        daemon = daemon();
        daemon.start();
        await("the first poll took the baseline", () -> baselined("acme/gh"));
        gh.file(".github/workflows/ci.yml", """
                name: GH
                on: push
                jobs:
                  build: {runs-on: x, steps: [{run: 'true'}]}
                  rescue: {needs: build, if: failure(), runs-on: x, steps: [{run: 'true'}]}
                  deploy: {if: "github.ref == 'refs/heads/release'", runs-on: x, steps: [{run: 'true'}]}
                  verify: {needs: deploy, runs-on: x, steps: [{run: 'true'}]}
                  ship: {if: "vars.DEPLOY == 'yes'", runs-on: x, steps: [{run: 'true'}]}
                  hold: {if: "vars.HOLD == 'yes'", runs-on: x, steps: [{run: 'true'}]}
                  stage: {environment: staging, if: "vars.DEPLOY == 'staging'", runs-on: x, steps: [{run: 'true'}]}
                  prod: {environment: {name: production, url: "https://example.com"}, runs-on: x, steps: [{run: 'true'}]}
                  elsewhere: {environment: nowhere, runs-on: x, steps: [{run: 'true'}]}
                """);
        gh.commit();
        await("nine runs are final", () -> runs().stream().filter(r -> r.repo().equals("acme/gh") && r.status().isFinal())
                .count() == 9);
        java.util.Map<String, RunRecord> byName = new java.util.HashMap<>();
        runs().stream().filter(r -> r.repo().equals("acme/gh")).forEach(r -> byName.put(r.workflow(), r));
        assertThat(byName.get("GH / build").status()).isEqualTo(CheckStatus.ERROR);
        assertThat(byName.get("GH / rescue").status()).as("taken after build failed").isEqualTo(CheckStatus.ERROR);
        assertThat(byName.get("GH / rescue").reason()).contains("no environments here");
        assertThat(byName.get("GH / deploy").status()).isEqualTo(CheckStatus.SKIPPED);
        assertThat(byName.get("GH / deploy").reason()).isEqualTo("its condition 'github.ref == 'refs/heads/release'' is false");
        assertThat(byName.get("GH / verify").status()).isEqualTo(CheckStatus.SKIPPED);
        assertThat(byName.get("GH / verify").reason()).isEqualTo("needs GH / deploy, which was skipped");
        // the repository's configuration variables, as the operator set them: one set, one not
        assertThat(byName.get("GH / ship").status()).as("taken").isEqualTo(CheckStatus.ERROR);
        assertThat(byName.get("GH / hold").status()).isEqualTo(CheckStatus.SKIPPED);
        // deployment environments: one declared reads its own variables over the repository's and is taken;
        // one declared for other branches, and one not declared, end before anything of them is made
        assertThat(byName.get("GH / stage").status()).as("taken").isEqualTo(CheckStatus.ERROR);
        assertThat(byName.get("GH / stage").reason()).contains("no environments here");
        assertThat(byName.get("GH / prod").status()).isEqualTo(CheckStatus.ERROR);
        assertThat(byName.get("GH / prod").reason()).isEqualTo("environment 'production' may be deployed to from release/*"
                + " only, and this run is of branch main");
        assertThat(byName.get("GH / elsewhere").reason()).startsWith("environment 'nowhere' is not declared for this"
                + " repository on this runner");
    }

    /**
     * An event that plans more runs than its cap queues none: it ends as one error check naming the
     * cap (and the flag that sets it), and the event is acknowledged, so it does not come again.
     */
    @Test
    void anEventOverItsRunCapQueuesNoneAndEndsAsOneErrorCheckNamingTheCap() throws Exception {
        Path dir = temp.resolve("state");
        Run run = new Run(executor, recorder(dir), SecretStore.inMemory(),
                new CacheStore(dir.resolve("cache"), 1L << 30, Clock.systemUTC()), RunListener.NONE, RunLimits.DEFAULT,
                RunJournal.NONE, Clock.systemUTC());
        Daemon.Settings settings = new Daemon.Settings("a", true, Set.of(), false, 2, Duration.ofMillis(100), "debian:bookworm-slim")
                .withEventCaps(new EventCaps(3, 1));
        daemon = new Daemon(settings, forge, state, new Mirrors(dir), run, executor, recorder(dir), lines::add, Clock.systemUTC());
        daemon.start();
        await("the first poll took the baseline", this::baselined);
        source.workflow("wide.yaml", "matrix: {n: ['1', '2', '3']}\nsteps: [{run: 'echo ${matrix.n}'}]\n");
        String sha = source.commit();
        await("the event's check is final", () -> !runs().isEmpty() && runs().stream().allMatch(r -> r.status().isFinal()));

        Thread.sleep(400); // several more polls: the acknowledged push comes no more, and nothing was queued
        assertThat(runs()).hasSize(1);
        RunRecord refused = runs().getFirst();
        assertThat(refused.workflow()).isEqualTo(EventCaps.WORKFLOW);
        assertThat(refused.commit()).isEqualTo(sha);
        assertThat(refused.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(refused.reason()).isEqualTo("the event plans 4 runs, over the 3 an event may plan (--event-runs); none was queued");
        assertThat(state.cursors().get("acme/app")).containsEntry("refs/heads/main", sha);
        assertThat(lines).noneMatch(l -> l.contains(" started"));
    }

    @Test
    void anUntrustedEventHasTheLowerCap() {
        QueuedRun pull = new QueuedRun("p-1", "acme/app", "a".repeat(40), "refs/pulls/7/head", "ci", Event.PULL, Trust.UNTRUSTED, "a");
        QueuedRun push = new QueuedRun("p-2", "acme/app", "a".repeat(40), "refs/heads/main", "ci", Event.PUSH, Trust.TRUSTED, "a");
        EventCaps caps = new EventCaps(2, 1);
        assertThat(caps.refusal(List.of(pull))).isEmpty();
        assertThat(caps.refusal(List.of(pull, pull))).hasValue(
                "the event plans 2 runs, over the 1 an untrusted event may plan (--untrusted-event-runs); none was queued");
        assertThat(caps.refusal(List.of(push, push))).isEmpty();
        assertThat(caps.refusal(List.of())).isEmpty();
    }

    @Test
    void aPushHookHasTheRepositoryPolledNowAndRepeatedHooksAreOnePoll() throws Exception {
        Path dir = temp.resolve("state");
        Run run = new Run(executor, recorder(dir), SecretStore.inMemory(),
                new CacheStore(dir.resolve("cache"), 1L << 30, Clock.systemUTC()), RunListener.NONE, RunLimits.DEFAULT,
                RunJournal.NONE, Clock.systemUTC());
        forge.add(new Repository("acme/other", source.dir.toString() + "-elsewhere", "main", List.of("a"), List.of()));
        daemon = new Daemon(new Daemon.Settings("a", true, Set.of(), false, 1, Duration.ofHours(1), "debian:bookworm-slim"),
                forge, state, new Mirrors(dir), run, executor, recorder(dir), lines::add, Clock.systemUTC());
        daemon.start();
        await("the first poll took the baseline", this::baselined);
        String sha = source.commit(); // a push the hour's poll would find late

        assertThat(daemon.pollSoon("acme/nope")).isEmpty();
        assertThat(daemon.pollSoon(source.dir.toString() + "/")).as("by path").contains("acme/app");
        for (int i = 0; i < 50; i++) {
            assertThat(daemon.pollSoon("acme/app")).contains("acme/app");
        }
        await("the push is queued", () -> runs().stream().anyMatch(r -> r.commit().equals(sha)));
        assertThat(lines.stream().filter(l -> l.contains("acme/app: push hook; polling now")).count())
                .as("51 hooks in a burst coalesce into a few rounds").isBetween(1L, 10L);
        assertThat(lines).noneMatch(l -> l.contains("acme/other: push hook"));
    }

    @Test
    void lookNowHasTheLoopFindARepositoryAddedSinceItsLastRoundWithoutWaitingForTheInterval() throws Exception {
        Path dir = temp.resolve("state");
        Run run = new Run(executor, recorder(dir), SecretStore.inMemory(),
                new CacheStore(dir.resolve("cache"), 1L << 30, Clock.systemUTC()), RunListener.NONE, RunLimits.DEFAULT,
                RunJournal.NONE, Clock.systemUTC());
        daemon = new Daemon(new Daemon.Settings("a", true, Set.of(), false, 1, Duration.ofHours(1), "debian:bookworm-slim"),
                forge, state, new Mirrors(dir), run, executor, recorder(dir), lines::add, Clock.systemUTC());
        daemon.start();
        await("the first poll took the baseline", this::baselined);
        TestRepo later = new TestRepo(temp.resolve("later")).workflow("ci.yaml", "steps: [{run: 'true'}]\n");
        later.commit();
        forge.add(new Repository("acme/later", later.dir.toString(), "main", List.of("a"), List.of()));
        Thread.sleep(300);
        assertThat(state.cursors().get("acme/later")).as("the hour's interval holds the loop").doesNotContainKey("@baseline");

        daemon.lookNow();
        await("the added repository is polled", () -> {
            try {
                return state.cursors().get("acme/later").containsKey("@baseline");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @Test
    void aWorkflowFileOverTheMirrorsSizeCapIsAnErrorNamingItAndTheOtherWorkflowsStillRun() throws Exception {
        daemon = daemon();
        daemon.start();
        await("the first poll took the baseline", this::baselined);
        source.workflow("huge.yaml", "#".repeat(Mirror.MAX_FILE_BYTES) + "\nsteps: [{run: 'true'}]\n");
        String sha = source.commit();
        await("both runs are final", () -> runs().size() == 2 && runs().stream().allMatch(r -> r.status().isFinal()));

        RunRecord ci = runs().stream().filter(r -> r.workflow().equals("ci")).findFirst().orElseThrow();
        assertThat(ci.reason()).as("ci reached the executor").contains("no environments here");
        RunRecord huge = runs().stream().filter(r -> r.workflow().endsWith("huge.yaml")).findFirst().orElseThrow();
        assertThat(huge.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(huge.commit()).isEqualTo(sha);
        assertThat(huge.reason()).isEqualTo(".knotless/workflows/huge.yaml:1:1: the file is " + (Mirror.MAX_FILE_BYTES + 24)
                + " bytes; files read from .knotless/workflows are limited to " + Mirror.MAX_FILE_BYTES + " bytes; it is not read");
    }

    @Test
    void aRunLeftRunningByAKilledProcessEndsAsRunnerRestartedAndWaitingRunsStillRun() throws Exception {
        String sha = source.git("rev-parse", "HEAD").strip();
        QueuedRun killed = new QueuedRun("killed-1", "acme/app", sha, "refs/heads/main", "ci", Event.PUSH, Trust.TRUSTED, "a");
        QueuedRun waiting = new QueuedRun("waiting-1", "acme/app", sha, "refs/heads/main", "ci", Event.PUSH, Trust.TRUSTED, "a");
        state.runs().enqueue(List.of(killed, waiting));
        assertThat(state.runs().takeNext(2).orElseThrow().id()).isEqualTo("killed-1");

        daemon = daemon();
        daemon.start();
        RunRecord recovered = state.runs().run("killed-1").orElseThrow();
        assertThat(recovered.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(recovered.reason()).isEqualTo("runner restarted");
        assertThat(recovered.check().steps()).isEmpty();
        assertThat(new CheckStore(temp.resolve("state")).load("killed-1").orElseThrow().reason()).isEqualTo("runner restarted");
        assertThat(executor.swept).containsExactly("a");
        await("the waiting run ran", () -> runs().stream().filter(r -> r.id().equals("waiting-1")).allMatch(r -> r.status().isFinal()));
        assertThat(state.runs().run("waiting-1").orElseThrow().reason()).contains("no environments here");
    }

    /**
     * A restart looks for the environments of the runs it finds going side by side: one after
     * another, lookups that each wait up to 30 s for all the others to be asked would never meet.
     */
    @Test
    void theEnvironmentsOfRunsLeftGoingAreLookedForSideBySide() throws Exception {
        String sha = source.git("rev-parse", "HEAD").strip();
        List<String> ids = List.of("left-1", "left-2", "left-3", "left-4");
        for (String id : ids) {
            state.runs().enqueue(new QueuedRun(id, "acme/app", sha, "refs/heads/main", "ci", Event.PUSH, Trust.TRUSTED, "a"));
            assertThat(state.runs().takeNext(ids.size()).orElseThrow().id()).isEqualTo(id);
            state.progress().record(id, new RunProgress(1, 0, 0, 0, List.of()));
        }
        CountDownLatch allAsked = new CountDownLatch(ids.size());
        List<String> metTheOthers = new CopyOnWriteArrayList<>();
        executor.resumption = spec -> {
            allAsked.countDown();
            try {
                if (allAsked.await(30, TimeUnit.SECONDS)) { // only catches lookups that never meet
                    metTheOthers.add(spec.runId());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Optional.empty();
        };

        daemon = daemon();
        daemon.start();

        assertThat(metTheOthers).as("lookups that met all the others").containsExactlyInAnyOrderElementsOf(ids);
        for (String id : ids) {
            assertThat(state.runs().run(id).orElseThrow().reason()).as(id).isEqualTo("runner restarted");
        }
    }

    /** A process that met a full state directory and died before it could record the check: its reserve says so. */
    @Test
    void aRunWhoseReserveIsMarkedFullEndsWithThatReasonAfterARestartAndItsReserveIsGone() throws Exception {
        String sha = source.git("rev-parse", "HEAD").strip();
        state.runs().enqueue(new QueuedRun("full-1", "acme/app", sha, "refs/heads/main", "ci", Event.PUSH, Trust.TRUSTED, "a"));
        assertThat(state.runs().takeNext(1).orElseThrow().id()).isEqualTo("full-1");
        SpaceReserve reserve = new CheckStore(temp.resolve("state")).reserve("full-1");
        reserve.take();
        reserve.markFull();

        daemon = daemon();
        daemon.start();
        RunRecord recovered = state.runs().run("full-1").orElseThrow();
        assertThat(recovered.status()).isEqualTo(CheckStatus.ERROR);
        assertThat(recovered.reason()).isEqualTo("state directory full");
        assertThat(new CheckStore(temp.resolve("state")).load("full-1").orElseThrow().reason()).isEqualTo("state directory full");
        assertThat(reserve.markedFull()).isFalse();
        assertThat(temp.resolve("state/checks/.full-1.reserve")).doesNotExist();
    }

    @Test
    void watchingNamedRepositoriesOnlyLeavesTheOthersUnpolled() throws Exception {
        TestRepo other = new TestRepo(temp.resolve("other")).workflow("ci.yaml", "steps: [{run: 'true'}]\n");
        other.commit();
        forge.add(new Repository("acme/other", other.dir.toString(), "main", List.of("a"), List.of()));
        Path dir = temp.resolve("state");
        Run run = new Run(executor, recorder(dir), SecretStore.inMemory(),
                new CacheStore(dir.resolve("cache"), 1L << 30, Clock.systemUTC()), RunListener.NONE, RunLimits.DEFAULT,
                RunJournal.NONE, Clock.systemUTC());
        daemon = new Daemon(new Daemon.Settings("a", false, Set.of("acme/app"), false, 1, Duration.ofMillis(100),
                "debian:bookworm-slim"), forge, state, new Mirrors(dir), run, executor, recorder(dir), lines::add,
                Clock.systemUTC());
        daemon.start();
        await("the first poll took the baseline", this::baselined);
        Thread.sleep(300);
        assertThat(state.cursors().get("acme/other")).isEmpty();
    }

    @Test
    void defaultRunnerIsWrittenIntoRecordsNamingNoRunnerOnlyAndTheyAreWatchedThen() throws Exception {
        TestRepo fresh = new TestRepo(temp.resolve("fresh")).workflow("ci.yaml", "steps: [{run: 'true'}]\n");
        fresh.commit();
        forge.add(new Repository("acme/fresh", fresh.dir.toString(), "main", List.of(), List.of()));
        forge.add(new Repository("acme/theirs", fresh.dir.toString(), "main", List.of("b"), List.of("b")));
        Path dir = temp.resolve("state");
        Run run = new Run(executor, recorder(dir), SecretStore.inMemory(),
                new CacheStore(dir.resolve("cache"), 1L << 30, Clock.systemUTC()), RunListener.NONE, RunLimits.DEFAULT,
                RunJournal.NONE, Clock.systemUTC());
        daemon = new Daemon(new Daemon.Settings("a", true, Set.of(), false, 1, Duration.ofMillis(100),
                "debian:bookworm-slim").withDefaultRunner("a"), forge, state, new Mirrors(dir), run, executor,
                recorder(dir), lines::add, Clock.systemUTC());
        daemon.start();
        await("acme/fresh is polled", () -> {
            try {
                return state.cursors().get("acme/fresh").containsKey("@baseline");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertThat(forge.repository("acme/fresh").orElseThrow().runners()).containsExactly("a");
        assertThat(forge.repository("acme/theirs").orElseThrow().runners()).containsExactly("b");
        assertThat(forge.repository("acme/app").orElseThrow().runners()).containsExactly("a");
        assertThat(lines).filteredOn(l -> l.contains("--default-runner")).containsExactly(
                "acme/fresh: its record named no runner; named a (--default-runner)");
        assertThat(state.cursors().get("acme/theirs")).as("not this runner's").isEmpty();
    }

    @Test
    void aCancelAskedForEndsAWaitingRunAndLeavesAnEndedOneAlone() throws Exception {
        String sha = source.git("rev-parse", "HEAD").strip();
        state.runs().enqueue(new QueuedRun("asked-1", "acme/app", sha, "refs/heads/main", "ci", Event.PUSH, Trust.TRUSTED, "a"));
        daemon = daemon(); // not started: nothing takes the run meanwhile
        assertThat(daemon.cancel("asked-1", "cancelled through the API")).isEqualTo(CancelOutcome.CANCELLED);
        assertThat(state.runs().run("asked-1").orElseThrow().status()).isEqualTo(CheckStatus.CANCELLED);
        assertThat(state.runs().run("asked-1").orElseThrow().reason()).isEqualTo("cancelled through the API");
        assertThat(lines).anyMatch(l -> l.contains("cancelled: cancelled through the API"));
        assertThat(daemon.cancel("asked-1", "again")).as("ended").isEqualTo(CancelOutcome.NOT_GOING);
        assertThat(daemon.cancel("nope", "unknown")).isEqualTo(CancelOutcome.NOT_GOING);
    }
}
