package dev.knotless.runner.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checkout.Mirrors;
import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.Repository;
import dev.knotless.runner.run.Run;
import dev.knotless.runner.state.Filter;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.StateStore;
import dev.knotless.testkit.FakeClock;
import dev.knotless.testkit.TestRepo;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scheduler on a real git repository, a real state database and a clock the test moves. */
class SchedulerTest {

    @TempDir Path temp;

    TestRepo source;
    String main;
    final FakeClock clock = new FakeClock(Instant.parse("2026-12-03T02:58:30Z"));
    final List<String> lines = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        source = new TestRepo(temp.resolve("source"))
                .workflow("nightly.yaml", """
                        on:
                          schedule:
                            - cron: "0 * * * *"
                              branches: [main, release]
                        steps: [{run: 'true'}]
                        """)
                .workflow("ci.yaml", "steps: [{run: 'true'}]\n");
        main = source.commit();
        source.git("branch", "release");
        source.file("more.txt", "x");
        main = source.commit();
    }

    Scheduler scheduler(StateStore state, String runner, Repository repo) throws Exception {
        EmbeddedForge forge = new EmbeddedForge(temp.resolve("forge-" + runner), state.cursors());
        forge.remove(repo.name());
        forge.add(repo);
        return new Scheduler(runner, forge, new Schedules(new Mirrors(temp.resolve("mirrors-" + runner))), state.runs(),
                state.scheduleMarks(), clock, r -> true, lines::add);
    }

    Repository repo(String... runners) {
        return new Repository("acme/app", source.dir.toString(), "main", List.of(runners), List.of());
    }

    static List<RunRecord> scheduled(StateStore state) throws Exception {
        return state.runs().runs(Filter.recent()).stream().filter(r -> r.event() == Event.SCHEDULE).toList();
    }

    @Test
    void aDueTimeQueuesOneRunPerBranchOnceAndAFirstSeenScheduleWaitsForItsNextTime() throws Exception {
        try (StateStore state = StateStore.open(temp.resolve("state"), clock)) {
            Scheduler s = scheduler(state, "a", repo("a"));
            assertThat(s.tick()).as("first seen: nothing at once").isZero();
            clock.advance(Duration.ofSeconds(20)); // 02:58:50, same minute
            assertThat(s.tick()).isZero();
            clock.advance(Duration.ofSeconds(75)); // 03:00:05
            assertThat(s.tick()).isEqualTo(2);
            List<RunRecord> runs = scheduled(state);
            assertThat(runs).extracting(RunRecord::ref).containsExactlyInAnyOrder("refs/heads/main", "refs/heads/release");
            assertThat(runs).allSatisfy(r -> {
                assertThat(r.trust()).isEqualTo(Trust.TRUSTED);
                assertThat(r.workflow()).isEqualTo("nightly");
                assertThat(r.variables()).containsEntry(Run.SCHEDULED_FOR, "2026-12-03T03:00:00Z")
                        .containsEntry(Run.SCHEDULE_MISSED, "0").doesNotContainKey(Run.SCHEDULE_MISSED_SINCE);
            });
            assertThat(runs).filteredOn(r -> r.ref().equals("refs/heads/main")).extracting(RunRecord::commit).containsExactly(main);
            assertThat(runs).filteredOn(r -> r.ref().equals("refs/heads/release")).extracting(RunRecord::commit)
                    .doesNotContain(main);
            clock.advance(Duration.ofMinutes(1)); // 03:01:05: nothing new is due
            assertThat(s.tick()).isZero();
            assertThat(scheduled(state)).hasSize(2);
        }
    }

    @Test
    void afterDowntimeTheMissedTimesRunOnceAndARestartRepeatsNothing() throws Exception {
        try (StateStore state = StateStore.open(temp.resolve("state"), clock)) {
            scheduler(state, "a", repo("a")).tick();
            clock.advance(Duration.ofMinutes(2)); // 03:00:30
            assertThat(scheduler(state, "a", repo("a")).tick()).isEqualTo(2);
            clock.advance(Duration.ofHours(5)); // 08:00:30: 04, 05, 06, 07 and 08 were due while it was down
            Scheduler restarted = scheduler(state, "a", repo("a"));
            assertThat(restarted.tick()).as("once per branch, not once per missed time").isEqualTo(2);
            assertThat(scheduled(state)).filteredOn(r -> r.ref().equals("refs/heads/main"))
                    .extracting(r -> r.variables().get(Run.SCHEDULED_FOR))
                    .containsExactlyInAnyOrder("2026-12-03T03:00:00Z", "2026-12-03T08:00:00Z");
            assertThat(scheduled(state)).filteredOn(r -> r.variables().get(Run.SCHEDULED_FOR).equals("2026-12-03T08:00:00Z"))
                    .allSatisfy(r -> assertThat(r.variables()).containsEntry(Run.SCHEDULE_MISSED, "4")
                            .containsEntry(Run.SCHEDULE_MISSED_SINCE, "2026-12-03T04:00:00Z"));
            assertThat(lines).anyMatch(l -> l.contains("4 earlier due times since 2026-12-03T04:00:00Z missed"));
            assertThat(scheduler(state, "a", repo("a")).tick()).as("restarted again in the same minute").isZero();
            assertThat(scheduled(state)).hasSize(4);
        }
    }

    @Test
    void ofTwoRunnersWatchingTheRepositoryOnlyTheLanderQueues() throws Exception {
        try (StateStore a = StateStore.open(temp.resolve("state-a"), clock);
             StateStore b = StateStore.open(temp.resolve("state-b"), clock)) {
            Scheduler first = scheduler(a, "a", repo("a", "b"));
            Scheduler second = scheduler(b, "b", repo("a", "b"));
            first.tick();
            second.tick();
            clock.advance(Duration.ofMinutes(2));
            assertThat(first.tick()).isEqualTo(2);
            assertThat(second.tick()).isZero();
            assertThat(scheduled(b)).isEmpty();
        }
    }

    @Test
    void schedulesAreReadAgainAfterAPushWhenDueAndHourlyButNotEveryMinute() throws Exception {
        TestRepo daily = new TestRepo(temp.resolve("daily")).workflow("daily.yaml", cron("0 5 * * *"));
        daily.commit();
        Repository repo = new Repository("acme/daily", daily.dir.toString(), "main", List.of("a"), List.of());
        try (StateStore state = StateStore.open(temp.resolve("state"), clock)) {
            Scheduler s = scheduler(state, "a", repo);
            s.tick();
            assertThat(lines).anyMatch(l -> l.startsWith("acme/daily: daily on main") && l.contains("first seen"));

            daily.workflow("often.yaml", cron("30 4 * * *")).commit();
            clock.advance(Duration.ofMinutes(1));
            s.tick();
            assertThat(lines).as("no push seen, nothing due: the last reading serves").noneMatch(l -> l.contains("often on main"));
            s.changed("acme/daily");
            clock.advance(Duration.ofMinutes(1));
            s.tick();
            assertThat(lines).anyMatch(l -> l.startsWith("acme/daily: often on main") && l.contains("first seen"));

            daily.workflow("early.yaml", cron("45 4 * * *")).commit();
            clock.advance(Duration.ofMinutes(30));
            s.tick();
            assertThat(lines).noneMatch(l -> l.contains("early on main"));
            clock.advance(Scheduler.REREAD_AFTER.minusMinutes(29));
            s.tick();
            assertThat(lines).as("read again within the hour without a push").anyMatch(l -> l.startsWith("acme/daily: early on main"));
        }
    }

    private static String cron(String cron) {
        return "on:\n  schedule:\n    - cron: \"" + cron + "\"\nsteps: [{run: 'true'}]\n";
    }

    @Test
    void aBranchThatIsGoneIsSaidOncePerDueTime() throws Exception {
        source.git("branch", "-D", "release");
        try (StateStore state = StateStore.open(temp.resolve("state"), clock)) {
            Scheduler s = scheduler(state, "a", repo("a"));
            s.tick();
            clock.advance(Duration.ofMinutes(2));
            assertThat(s.tick()).isEqualTo(1);
            clock.advance(Duration.ofMinutes(1));
            s.tick();
            assertThat(lines).filteredOn(l -> l.contains("branch release is not in the repository")).hasSize(1);
        }
    }
}
