package dev.knotless.runner.run.step.evaluate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Event;
import dev.knotless.plan.RunFact;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunFactsTest {

    @Test
    void theRepositoryIsOwnerAndNameFromWhereItIsClonedAsGithubNamesRepositories() {
        assertThat(RunFacts.ownerAndName("https://github.com/acme/app.git")).containsExactly("acme", "app");
        assertThat(RunFacts.ownerAndName("https://forgejo.lan:3000/team/site")).containsExactly("team", "site");
        assertThat(RunFacts.ownerAndName("git@github.com:acme/app.git")).containsExactly("acme", "app");
        assertThat(RunFacts.ownerAndName("/srv/git/app.git")).containsExactly("git", "app");
        assertThat(RunFacts.ownerAndName("/home/ada/src/app/")).containsExactly("src", "app");
        assertThat(RunFacts.ownerAndName("acme/app")).containsExactly("acme", "app");
        assertThat(RunFacts.ownerAndName("app")).containsExactly("app", "app");
    }

    @Test
    void theServerIsTheCloneUrlsOriginAndGithubsForAnyOtherLocation() {
        assertThat(RunFacts.serverUrl("https://forgejo.lan:3000/team/site.git")).isEqualTo("https://forgejo.lan:3000");
        assertThat(RunFacts.serverUrl("http://gitea.lan/team/site")).isEqualTo("http://gitea.lan");
        assertThat(RunFacts.serverUrl("https://github.com/acme/app")).isEqualTo("https://github.com");
        assertThat(RunFacts.serverUrl("/srv/git/app.git")).isEqualTo("https://github.com");
        assertThat(RunFacts.serverUrl("git@github.com:acme/app.git")).isEqualTo("https://github.com");
    }

    @Test
    void theFactsOfARunNameItsRepositoryAsGithubDoes() {
        RunFacts facts = RunFacts.of("https://forgejo.lan/team/site.git", "refs/heads/main", "a".repeat(40),
                "refs/heads/dev", Event.PUSH, "run-1", List.of());
        assertThat(facts.get(RunFact.REPOSITORY)).isEqualTo("team/site");
        assertThat(facts.get(RunFact.REPOSITORY_OWNER)).isEqualTo("team");
        assertThat(facts.get(RunFact.REPOSITORY_NAME)).isEqualTo("site");
        assertThat(facts.get(RunFact.SERVER_URL)).isEqualTo("https://forgejo.lan");
        assertThat(facts.get(RunFact.REF_NAME)).isEqualTo("dev");
    }
}
