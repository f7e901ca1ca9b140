package dev.knotless.runner.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NeedsTest {

    private static Optional<String> unpassed(Map<String, CheckStatus> newest, String... needs) {
        return Needs.unpassed(List.of(needs), name -> Optional.ofNullable(newest.get(name)), Event.PUSH);
    }

    @Test
    void theFirstNeedThatDidNotPassIsNamedWithHowItEnded() {
        Map<String, CheckStatus> newest = Map.of("lint", CheckStatus.SUCCESS, "build", CheckStatus.FAILURE,
                "test", CheckStatus.CANCELLED);
        assertThat(unpassed(newest, "lint", "build", "test")).contains("needs build, which failed");
        assertThat(unpassed(newest, "test")).contains("needs test, which was cancelled");
        assertThat(unpassed(Map.of("e", CheckStatus.ERROR), "e")).contains("needs e, which ended in an error");
    }

    @Test
    void aNeedWithoutARunDoesNotRunForThisEvent() {
        assertThat(unpassed(Map.of(), "site")).contains("needs site, which does not run for this push on this runner");
    }

    @Test
    void needsStillGoingOrPassedBlockNothing() {
        assertThat(unpassed(Map.of("build", CheckStatus.RUNNING, "lint", CheckStatus.SUCCESS), "build", "lint")).isEmpty();
    }
}
