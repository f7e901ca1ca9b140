package dev.knotless.plan.knotless;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.checks.Event;
import dev.knotless.plan.Schedule;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScheduleTest {

    static Workflow parse(String yaml) throws WorkflowException {
        return new KnotlessDialect().parse(".knotless/workflows/nightly.yaml", yaml);
    }

    @Test
    void weekdaysAtThreeComeAfterAFridayNightOnMonday() {
        Schedule s = new Schedule("0 3 * * 1-5", ZoneOffset.UTC, List.of());
        // 2026-12-04 is a Friday
        assertThat(s.next(Instant.parse("2026-12-04T03:00:00Z"))).contains(Instant.parse("2026-12-07T03:00:00Z"));
        assertThat(s.next(Instant.parse("2026-12-04T02:59:59Z"))).contains(Instant.parse("2026-12-04T03:00:00Z"));
        assertThat(s.latest(Instant.parse("2026-12-06T12:00:00Z"))).contains(Instant.parse("2026-12-04T03:00:00Z"));
        assertThat(s.latest(Instant.parse("2026-12-04T03:00:00Z"))).as("a due time on the very second counts")
                .contains(Instant.parse("2026-12-04T03:00:00Z"));
    }

    @Test
    void aTimeZoneMovesTheDueTimeAndFollowsDaylightSaving() {
        Schedule berlin = new Schedule("0 3 * * *", ZoneId.of("Europe/Berlin"), List.of());
        assertThat(berlin.next(Instant.parse("2026-12-03T12:00:00Z"))).contains(Instant.parse("2026-12-04T02:00:00Z"));
        assertThat(berlin.next(Instant.parse("2026-07-03T12:00:00Z"))).contains(Instant.parse("2026-07-04T01:00:00Z"));
    }

    @Test
    void aWorkflowReadsItsSchedulesWithBranchesAndZone() throws Exception {
        Workflow w = parse("""
                on:
                  push: {branches: [main]}
                  schedule:
                    - cron: "0 3 * * 1-5"
                      branches: [main, release]
                    - cron: "*/15 * * * *"
                      timezone: Europe/Berlin
                steps: [{run: 'true'}]
                """);
        assertThat(w.on().schedules()).containsExactly(
                new Schedule("0 3 * * 1-5", ZoneId.of("UTC"), List.of("main", "release")),
                new Schedule("*/15 * * * *", ZoneId.of("Europe/Berlin"), List.of()));
        assertThat(w.on().events()).containsExactlyInAnyOrder(Event.PUSH, Event.SCHEDULE);
        assertThat(w.on().matches(Event.SCHEDULE, "anything")).isTrue();
        assertThat(w.on().matches(Event.PUSH, "dev")).isFalse();
        assertThat(parse("steps: [{run: 'true'}]\n").on().matches(Event.SCHEDULE, "main")).isFalse();
    }

    @Test
    void badSchedulesNameFileLineAndField() {
        Map<String, String> cases = Map.of(
                "on: {schedule: [{cron: '0 3 * *'}]}\nsteps: [{run: 'true'}]\n",
                ".knotless/workflows/nightly.yaml:1:24: field 'on.schedule[0].cron': '0 3 * *' has 4 field(s); a schedule has five",
                "on: {schedule: [{cron: '61 3 * * *'}]}\nsteps: [{run: 'true'}]\n",
                ".knotless/workflows/nightly.yaml:1:24: field 'on.schedule[0].cron': '61 3 * * *' is not a cron expression",
                "on: {schedule: [{cron: '0 3 * * *', timezone: Mars/Olympus}]}\nsteps: [{run: 'true'}]\n",
                "field 'on.schedule[0].timezone': 'Mars/Olympus' is not a time zone",
                "on: {schedule: [{cron: '0 3 * * *', branches: ['release/*']}]}\nsteps: [{run: 'true'}]\n",
                "field 'on.schedule[0].branches[0]': 'release/*' is a pattern",
                "on: {schedule: [{corn: '0 3 * * *'}]}\nsteps: [{run: 'true'}]\n",
                "field 'on.schedule[0].corn'",
                "on: {schedule: [{branches: [main]}]}\nsteps: [{run: 'true'}]\n",
                "field 'on.schedule[0].cron': is missing",
                "on: [push, schedule]\nsteps: [{run: 'true'}]\n",
                "field 'on[1]': schedule needs its times",
                "on: {schedule: '0 3 * * *'}\nsteps: [{run: 'true'}]\n",
                "field 'on.schedule': expected a list of times");
        cases.forEach((yaml, message) -> assertThatThrownBy(() -> parse(yaml))
                .isInstanceOf(WorkflowException.class)
                .hasMessageContaining(message));
    }
}
