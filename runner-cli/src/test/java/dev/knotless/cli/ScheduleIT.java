package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.checks.ScheduledFor;
import dev.knotless.runner.run.Run;
import dev.knotless.runner.state.RunRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A minutely {@code on.schedule} on the real daemon process and real Docker, with the daemon's
 * schedule clock at 30 times real time ({@code --schedule-clock 30@ORIGIN}: a due time every two
 * seconds). Due times run once each; after a SIGKILL and a restart on the same state the times
 * missed while it was down run once, as one late run that says so, and no due time runs twice.
 */
class ScheduleIT {

    static final int RATE = 30;

    @TempDir Path tmp;
    final String runnerId = "sched-it-" + UUID.randomUUID().toString().substring(0, 8);
    final List<DaemonProcess> daemons = new ArrayList<>();

    @AfterEach
    void nothingIsLeftBehind() throws Exception {
        for (DaemonProcess d : daemons) {
            d.close();
        }
        assertThat(Docker.containersOf(runnerId)).as("containers left by " + runnerId).isEmpty();
    }

    DaemonProcess daemon(Path state, String logName, String clock) throws IOException {
        DaemonProcess d = DaemonProcess.runner(tmp.resolve(logName), state, runnerId, "--concurrency", "2", "--stop-grace", "10s",
                "--schedule-clock", clock);
        daemons.add(d);
        return d;
    }

    static List<RunRecord> scheduled(Path state) {
        try {
            return DaemonKillIT.runs(state).stream().filter(r -> r.event() == Event.SCHEDULE)
                    .sorted(Comparator.comparing(r -> r.variables().get(Run.SCHEDULED_FOR))).toList();
        } catch (IOException e) {
            return List.of(); // the daemon holds the database at this moment; asked again
        }
    }

    static long ended(Path state) {
        return scheduled(state).stream().filter(r -> r.status().isFinal()).count();
    }

    @Test
    void dueTimesRunOnceEachAndARestartRunsTheMissedOnesOnceLate() throws Exception {
        Path state = tmp.resolve("state");
        Upstream.create(tmp.resolve("one"), "acme/nightly", Map.of("nightly.yaml", """
                image: %s
                on:
                  schedule:
                    - cron: "* * * * *"
                steps:
                  - name: when
                    run: echo "due $KNOTLESS_SCHEDULED_FOR missed $KNOTLESS_SCHEDULE_MISSED"
                """.formatted(ExecIT.IMAGE)), state, runnerId);
        String clock = RATE + "@" + Instant.now().truncatedTo(ChronoUnit.SECONDS);

        DaemonProcess first = daemon(state, "first.log", clock);
        first.await("three scheduled runs ended", Duration.ofSeconds(120), () -> ended(state) >= 3);
        first.kill();
        List<RunRecord> beforeKill = scheduled(state);
        Instant lastBefore = Instant.parse(beforeKill.getLast().variables().get(Run.SCHEDULED_FOR));
        Thread.sleep(Duration.ofSeconds(8)); // four due times at rate 30 pass while no daemon runs

        DaemonProcess second = daemon(state, "second.log", clock);
        second.await("two scheduled runs after the restart ended", Duration.ofSeconds(120),
                () -> scheduled(state).stream().filter(r -> r.status().isFinal()
                        && Instant.parse(r.variables().get(Run.SCHEDULED_FOR)).isAfter(lastBefore)).count() >= 2);
        assertThat(second.stop(Duration.ofSeconds(60))).as(second.log()).isZero();

        List<RunRecord> all = scheduled(state);
        List<String> dues = all.stream().map(r -> r.variables().get(Run.SCHEDULED_FOR)).toList();
        System.out.printf("scheduled runs: %d before the kill, %d in all; due times %s%n", beforeKill.size(), all.size(), dues);
        assertThat(dues).as("no due time runs twice").doesNotHaveDuplicates();
        assertThat(all).extracting(RunRecord::id).doesNotHaveDuplicates();
        assertThat(dues).allSatisfy(d -> assertThat(Instant.parse(d).getEpochSecond() % 60).as(d + " is a whole minute").isZero());

        List<RunRecord> after = all.stream()
                .filter(r -> Instant.parse(r.variables().get(Run.SCHEDULED_FOR)).isAfter(lastBefore)).toList();
        RunRecord late = after.getFirst();
        assertThat(late.status()).as(late.id() + ": " + late.reason()).isEqualTo(CheckStatus.SUCCESS);
        ScheduledFor lateFor = late.check().scheduled();
        assertThat(lateFor.missed()).as("the times missed while no daemon ran: one run stands for them").isGreaterThanOrEqualTo(2);
        assertThat(lateFor.missedSince()).isEqualTo(lastBefore.plus(Duration.ofMinutes(1)));
        assertThat(lateFor.dueAt()).isEqualTo(lastBefore.plus(Duration.ofMinutes(lateFor.missed() + 1L)));
        String lateLog = Files.readString(state.resolve("logs").resolve(late.id() + ".log"));
        assertThat(lateLog).contains(lateFor.line()).contains("late: " + lateFor.missed() + " earlier due times since")
                .contains("due " + lateFor.dueAt() + " missed " + lateFor.missed());
        // The next one goes on from the late one: every due time between them counted as missed.
        // Whether it is on time (missed 0) is the machine's: at the test clock's rate a minute is
        // two seconds, and a daemon held up longer under load misses one, as it would a minute.
        ScheduledFor nextFor = after.get(1).check().scheduled();
        assertThat(nextFor.dueAt()).as("the next due time, its missed ones counted (%s)", nextFor)
                .isEqualTo(lateFor.dueAt().plus(Duration.ofMinutes(nextFor.missed() + 1L)));
        assertThat(beforeKill).allSatisfy(r -> {
            if (r.status().isFinal()) {
                assertThat(r.check().scheduled()).isNotNull();
            }
        });
        assertThat(first.log()).contains("acme/nightly: nightly on main (\"* * * * *\" UTC): first seen");
        assertThat(second.log()).doesNotContain("first seen");
    }
}
