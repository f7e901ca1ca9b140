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
        return blocker(newest, true, needs).map(Needs.Blocker::reason);
    }

    private static Optional<Needs.Blocker> blocker(Map<String, CheckStatus> newest, boolean mustPass, String... needs) {
        return Needs.unpassed(List.of(needs), name -> Optional.ofNullable(newest.get(name)), Event.PUSH, mustPass);
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

    @Test
    void aSkippedNeedSkipsWhatNeedsItAndAFailedOneCancelsIt() {
        assertThat(blocker(Map.of("deploy", CheckStatus.SKIPPED), true, "deploy"))
                .contains(new Needs.Blocker("needs deploy, which was skipped", CheckStatus.SKIPPED));
        assertThat(blocker(Map.of("build", CheckStatus.FAILURE), true, "build"))
                .contains(new Needs.Blocker("needs build, which failed", CheckStatus.CANCELLED));
    }

    @Test
    void aRunStartedWhateverItsNeedsDidIsBlockedOnlyByANeedThatDoesNotRun() {
        assertThat(blocker(Map.of("build", CheckStatus.FAILURE, "lint", CheckStatus.SKIPPED), false, "build", "lint")).isEmpty();
        assertThat(blocker(Map.of("build", CheckStatus.FAILURE), false, "build", "site"))
                .contains(new Needs.Blocker("needs site, which does not run for this push on this runner", CheckStatus.CANCELLED));
    }
}
