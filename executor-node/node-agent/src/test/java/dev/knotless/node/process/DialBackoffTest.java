package dev.knotless.node.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DialBackoffTest {

    @Test
    void aRefusedDialIsRetriedWithinTheShortCapAndOtherFailuresBackOffToFiveSeconds() {
        DialBackoff backoff = new DialBackoff(new Random(7));
        for (int i = 0; i < 50; i++) {
            assertThat(backoff.after(true)).isBetween(Duration.ofMillis(50), DialBackoff.NOT_LISTENING_CAP);
        }
        long longest = 0;
        for (int i = 0; i < 50; i++) {
            Duration wait = backoff.after(false);
            assertThat(wait).isLessThanOrEqualTo(DialBackoff.FAILURE_CAP);
            longest = Math.max(longest, wait.toMillis());
        }
        assertThat(longest).as("grows to the cap").isGreaterThanOrEqualTo(DialBackoff.FAILURE_CAP.toMillis() / 2);
        backoff.reset();
        assertThat(backoff.after(false)).as("connected: starts short again").isBetween(Duration.ofMillis(50), DialBackoff.FIRST);
    }

    @Test
    void delaysAreJitteredBetweenHalfAndAllOfTheStep() {
        Set<Long> seen = new HashSet<>();
        for (int seed = 0; seed < 20; seed++) {
            seen.add(new DialBackoff(new Random(seed)).after(true).toMillis());
        }
        assertThat(seen).as("not every node waits the same").hasSizeGreaterThan(5).allSatisfy(ms -> assertThat(ms).isBetween(50L, 100L));
    }
}
