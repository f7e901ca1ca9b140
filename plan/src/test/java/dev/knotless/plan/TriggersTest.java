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
        assertThat(BranchGlob.matches("release/*", "release/1.0")).isTrue();
        assertThat(BranchGlob.matches("release/*", "release/")).isTrue();
        assertThat(BranchGlob.matches("release/*", "release/1.0/hotfix")).isFalse();
        assertThat(BranchGlob.matches("release/*", "release")).isFalse();
        assertThat(BranchGlob.matches("*", "main")).isTrue();
        assertThat(BranchGlob.matches("*", "feature/x")).isFalse();
        assertThat(BranchGlob.matches("feat-*-fix", "feat-login-fix")).isTrue();
    }

    @Test
    void doubleStarMatchesAcrossSegments() {
        assertThat(BranchGlob.matches("release/**", "release/1.0/hotfix")).isTrue();
        assertThat(BranchGlob.matches("release/**", "release/1.0")).isTrue();
        assertThat(BranchGlob.matches("release/**", "release")).isFalse();
        assertThat(BranchGlob.matches("**", "a/b/c")).isTrue();
        assertThat(BranchGlob.matches("**/fix", "fix")).isTrue();
        assertThat(BranchGlob.matches("**/fix", "a/b/fix")).isTrue();
        assertThat(BranchGlob.matches("**/fix", "a/bfix")).isFalse();
        assertThat(BranchGlob.matches("a/**/b", "a/b")).isTrue();
        assertThat(BranchGlob.matches("a/**/b", "a/x/y/b")).isTrue();
        assertThat(BranchGlob.matches("a/**/b", "a/xb")).isFalse();
        assertThat(BranchGlob.matches("v**", "v1/2")).isTrue();
    }

    @Test
    void questionMarkMatchesOneCharacterButNotASlash() {
        assertThat(BranchGlob.matches("v?", "v1")).isTrue();
        assertThat(BranchGlob.matches("v?", "v12")).isFalse();
        assertThat(BranchGlob.matches("v?", "v")).isFalse();
        assertThat(BranchGlob.matches("a?b", "a/b")).isFalse();
    }

    @Test
    void otherCharactersMatchThemselvesIncludingRegexAndUnicode() {
        assertThat(BranchGlob.matches("fix.[1]+(x)", "fix.[1]+(x)")).isTrue();
        assertThat(BranchGlob.matches("fix.[1]", "fixa1")).isFalse();
        assertThat(BranchGlob.matches("main", "main")).isTrue();
        assertThat(BranchGlob.matches("main", "Main")).isFalse();
        assertThat(BranchGlob.matches("käse/*", "käse/ü")).isTrue();
    }

    @Test
    void manyStarsAgainstALongNameFinishQuickly() {
        String pattern = "*a".repeat(40) + "*b";
        String name = "a".repeat(250);
        // A backtracking matcher tries about C(250, 40) splits here, far more than any machine finishes:
        // the 30 s ceiling only tells a linear matcher from one that would never end.
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            assertThat(BranchGlob.matches(pattern, name)).isFalse();
            assertThat(BranchGlob.matches("**a".repeat(40) + "**b", name)).isFalse();
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
