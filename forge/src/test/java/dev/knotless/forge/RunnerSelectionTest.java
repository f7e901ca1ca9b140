package dev.knotless.forge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RunnerSelectionTest {

    private static List<String> list(String spaced) {
        return spaced == null || spaced.isBlank() ? List.of() : Arrays.asList(spaced.trim().split(" +"));
    }

    private static Repository repo(String runners, String mayPush) {
        return new Repository("acme/app", "/srv/app.git", "main", list(runners), list(mayPush));
    }

    @ParameterizedTest(name = "runners [{0}], pins [{1}]: {2} runs it = {3}")
    @CsvSource(nullValues = "-", value = {
            // record's runners, workflow pins, this runner, runs?
            "a b,   -,   a, true",   // every named runner runs an unpinned workflow
            "a b,   -,   b, true",
            "a b,   -,   c, false",  // an unnamed runner watches nothing
            "a b,   b,   a, false",  // a pin excludes the other named runners
            "a b,   b,   b, true",
            "a b,   c,   c, false",  // a pinned runner must still be named by the record
            "a b,   a b, b, true",
            "-,     -,   a, false",  // a record with no runners is run by none
    })
    void runs(String runners, String pins, String runner, boolean runs) {
        assertThat(RunnerSelection.runs(repo(runners, null), runner, list(pins))).isEqualTo(runs);
    }

    @ParameterizedTest(name = "runners [{0}], may push [{1}]: lander {2}")
    @CsvSource(nullValues = "-", value = {
            "a b c, -,   a",  // none may push: the first named
            "a b c, c,   c",  // the only one that may push
            "a b c, c b, b",  // the first in the record's order that may push, not may-push's order
            "a,     a,   a",
            "-,     -,   -",  // no runners, no lander
    })
    void lander(String runners, String mayPush, String lander) {
        Repository repo = repo(runners, mayPush);
        assertThat(RunnerSelection.lander(repo)).isEqualTo(Optional.ofNullable(lander));
        if (lander != null) {
            assertThat(RunnerSelection.lands(repo, lander)).isTrue();
        }
        assertThat(RunnerSelection.lands(repo, "nobody")).isFalse();
    }
}
