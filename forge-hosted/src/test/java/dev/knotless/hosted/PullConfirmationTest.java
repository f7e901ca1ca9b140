package dev.knotless.hosted;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.forge.Repository;
import java.net.URI;
import java.util.List;
import java.util.Map;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A pull request a hook called trusted, asked of the forge's API where a status token covers its
 * repository. A hosted forge cannot run here: {@link FakeForgeApi} stands in for its API, answering
 * the pull request objects GitHub, Gitea and GitLab document.
 */
class PullConfirmationTest {

    static final Repository WEB = new Repository("acme/web", "/srv/web.git", "main", List.of("r1"), List.of());

    FakeForgeApi api;

    @BeforeEach
    void start() throws Exception {
        api = new FakeForgeApi();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    PullConfirmation confirmation(ForgeKind kind) {
        return new PullConfirmation(new StatusTokens(List.of(new StatusTokens.Account(kind, URI.create(api.url()), "t0ken")),
                Map.of("acme/web", api.url() + "/acme/web")), new OkHttpClient());
    }

    @Test
    void gitHubsAnswerIsJudgedByTheHooksRules() {
        api.answers.add(200);
        api.bodies.add("""
                {"number": 7, "user": {"login": "alice"}, "author_association": "COLLABORATOR",
                 "base": {"ref": "main", "repo": {"full_name": "acme/web"}},
                 "head": {"ref": "fix", "repo": {"full_name": "acme/web"}}}""");
        assertThat(confirmation(ForgeKind.GITHUB).ask(WEB, 7)).isEqualTo(new PullConfirmation.Answer.Trusted());
        assertThat(api.requests.getFirst().rawPath()).isEqualTo("/repos/acme/web/pulls/7");
        assertThat(api.requests.getFirst().header("Authorization")).isEqualTo("Bearer t0ken");

        api.answers.add(200);
        api.bodies.add("""
                {"number": 8, "user": {"login": "mallory"}, "author_association": "CONTRIBUTOR",
                 "base": {"ref": "main", "repo": {"full_name": "acme/web"}},
                 "head": {"ref": "fix", "repo": {"full_name": "mallory/web"}}}""");
        assertThat(confirmation(ForgeKind.GITHUB).ask(WEB, 8))
                .isEqualTo(new PullConfirmation.Answer.Untrusted("github's API says pull request 8 is not trusted"));
    }

    @Test
    void aMissingPullRequestOrAnUnreadableAnswerIsUntrusted() {
        api.answers.add(404);
        assertThat(confirmation(ForgeKind.GITEA).ask(WEB, 9))
                .isEqualTo(new PullConfirmation.Answer.Untrusted("gitea answered HTTP 404 for pull request 9"));
        assertThat(api.requests.getFirst().rawPath()).isEqualTo("/api/v1/repos/acme/web/pulls/9");

        api.answers.add(200);
        api.bodies.add("not json");
        assertThat(confirmation(ForgeKind.GITLAB).ask(WEB, 9)).isInstanceOf(PullConfirmation.Answer.Untrusted.class);
        assertThat(api.requests.get(1).rawPath()).isEqualTo("/api/v4/projects/acme%2Fweb/merge_requests/9");
    }

    @Test
    void gitLabsMergeRequestIsTrustedFromItsOwnProject() {
        api.answers.add(200);
        api.bodies.add("{\"iid\": 3, \"source_project_id\": 12, \"target_project_id\": 12}");
        assertThat(confirmation(ForgeKind.GITLAB).ask(WEB, 3)).isEqualTo(new PullConfirmation.Answer.Trusted());
    }

    @Test
    void aRepositoryNoTokenCoversIsNotAsked() {
        assertThat(PullConfirmation.NONE.ask(WEB, 1)).isEqualTo(new PullConfirmation.Answer.NotAsked());
        assertThat(api.requests).isEmpty();
    }
}
