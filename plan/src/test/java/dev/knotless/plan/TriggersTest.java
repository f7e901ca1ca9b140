package dev.knotless.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.knotless.checks.Event;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TriggersTest {

    @Test
    void starMatchesWithinOneSegment() {
        assertThat(Glob.matches("release/*", "release/1.0")).isTrue();
        assertThat(Glob.matches("release/*", "release/")).isTrue();
        assertThat(Glob.matches("release/*", "release/1.0/hotfix")).isFalse();
        assertThat(Glob.matches("release/*", "release")).isFalse();
        assertThat(Glob.matches("*", "main")).isTrue();
        assertThat(Glob.matches("*", "feature/x")).isFalse();
        assertThat(Glob.matches("feat-*-fix", "feat-login-fix")).isTrue();
    }

    @Test
    void doubleStarMatchesAcrossSegments() {
        assertThat(Glob.matches("release/**", "release/1.0/hotfix")).isTrue();
        assertThat(Glob.matches("release/**", "release/1.0")).isTrue();
        assertThat(Glob.matches("release/**", "release")).isFalse();
        assertThat(Glob.matches("**", "a/b/c")).isTrue();
        assertThat(Glob.matches("**/fix", "fix")).isTrue();
        assertThat(Glob.matches("**/fix", "a/b/fix")).isTrue();
        assertThat(Glob.matches("**/fix", "a/bfix")).isFalse();
        assertThat(Glob.matches("a/**/b", "a/b")).isTrue();
        assertThat(Glob.matches("a/**/b", "a/x/y/b")).isTrue();
        assertThat(Glob.matches("a/**/b", "a/xb")).isFalse();
        assertThat(Glob.matches("v**", "v1/2")).isTrue();
    }

    @Test
    void questionMarkMatchesOneCharacterButNotASlash() {
        assertThat(Glob.matches("v?", "v1")).isTrue();
        assertThat(Glob.matches("v?", "v12")).isFalse();
        assertThat(Glob.matches("v?", "v")).isFalse();
        assertThat(Glob.matches("a?b", "a/b")).isFalse();
    }

    @Test
    void otherCharactersMatchThemselvesIncludingRegexAndUnicode() {
        assertThat(Glob.matches("fix.[1]+(x)", "fix.[1]+(x)")).isTrue();
        assertThat(Glob.matches("fix.[1]", "fixa1")).isFalse();
        assertThat(Glob.matches("main", "main")).isTrue();
        assertThat(Glob.matches("main", "Main")).isFalse();
        assertThat(Glob.matches("käse/*", "käse/ü")).isTrue();
    }

    @Test
    void manyStarsAgainstALongNameFinishQuickly() {
        String pattern = "*a".repeat(40) + "*b";
        String name = "a".repeat(250);
        // A backtracking matcher tries about C(250, 40) splits here, far more than any machine finishes:
        // the 30 s ceiling only tells a linear matcher from one that would never end.
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            assertThat(Glob.matches(pattern, name)).isFalse();
            assertThat(Glob.matches("**a".repeat(40) + "**b", name)).isFalse();
        }, "matching 41 stars against 250 characters");
    }

    @Test
    void matchesNeedsTheEventAndOneMatchingGlob() {
        Triggers triggers = new Triggers(Map.of(
                Event.PUSH, List.of("main", "release/*"),
                Event.MANUAL, List.of()));
        assertThat(triggers.matches(Event.PUSH, "main")).isTrue();
        assertThat(triggers.matches(Event.PUSH, "release/2")).isTrue();
        assertThat(triggers.matches(Event.PUSH, "feature")).isFalse();
        assertThat(triggers.matches(Event.MANUAL, "anything/at/all")).isTrue();
        assertThat(triggers.matches(Event.PULL, "main")).isFalse();
        assertThat(triggers.events()).containsExactly(Event.PUSH, Event.MANUAL);
    }

    @Test
    void theDefaultIsPushAndManualOnEveryBranch() {
        assertThat(Triggers.DEFAULT.events()).containsExactly(Event.PUSH, Event.MANUAL);
        assertThat(Triggers.DEFAULT.matches(Event.PUSH, "x/y")).isTrue();
        assertThat(Triggers.DEFAULT.matches(Event.PULL, "main")).isFalse();
        assertThat(Triggers.DEFAULT.matches(Event.BATCH, "main")).isFalse();
    }
}
