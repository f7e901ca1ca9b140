package dev.knotless.hosted;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.hosted.HookEvent.PullFacts;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Pull-request bodies (the recorded shapes in test resources, and edits of them) to the metadata a
 * pull request gets: target, author, fork and trust, each forge's fields mapped conservatively.
 */
class HookPayloadsTest {

    static String payload(String name) throws Exception {
        try (InputStream in = HookPayloadsTest.class.getResourceAsStream("/dev/knotless/hosted/" + name + ".json")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static HookEvent.PullRequest pull(ForgeKind kind, String event, String body) {
        HookEvent parsed = HookPayloads.parse(kind, event, body.getBytes(StandardCharsets.UTF_8));
        assertThat(parsed).isInstanceOf(HookEvent.PullRequest.class);
        return (HookEvent.PullRequest) parsed;
    }

    static PullFacts github(String body) {
        return pull(ForgeKind.GITHUB, "pull_request", body).facts();
    }

    static PullFacts gitea(String body) {
        return pull(ForgeKind.GITEA, "pull_request", body).facts();
    }

    static PullFacts gitlab(String body) {
        return pull(ForgeKind.GITLAB, "Merge Request Hook", body).facts();
    }

    @Test
    void gitHubsForkPullRequestByAContributorIsUntrusted() throws Exception {
        HookEvent.PullRequest pr = pull(ForgeKind.GITHUB, "pull_request", payload("github-pull_request"));
        assertThat(pr.number()).isEqualTo(42);
        assertThat(pr.facts()).isEqualTo(new PullFacts.Known("main", "octocat", true, false));
    }

    @Test
    void gitHubTrustsOnlyAHeadInTheTargetRepositoryByAnOwnerMemberOrCollaborator() throws Exception {
        String sameRepo = payload("github-pull_request").replace("\"full_name\": \"octocat/web\"", "\"full_name\": \"acme/web\"");
        for (String role : new String[] {"OWNER", "MEMBER", "COLLABORATOR"}) {
            assertThat(github(sameRepo.replace("\"CONTRIBUTOR\"", "\"" + role + "\"")))
                    .as(role).isEqualTo(new PullFacts.Known("main", "octocat", false, true));
        }
        for (String role : new String[] {"CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "NONE", "owner", "OWNER "}) {
            assertThat(github(sameRepo.replace("\"CONTRIBUTOR\"", "\"" + role + "\"")))
                    .as(role).isEqualTo(new PullFacts.Known("main", "octocat", false, false));
        }
        assertThat(github(sameRepo.replace("\"author_association\": \"CONTRIBUTOR\",", "")))
                .as("no association").isEqualTo(new PullFacts.Known("main", "octocat", false, false));
        // A collaborator's pull request from a fork is still a fork's code.
        assertThat(github(payload("github-pull_request").replace("\"CONTRIBUTOR\"", "\"OWNER\"")))
                .isEqualTo(new PullFacts.Known("main", "octocat", true, false));
    }

    @Test
    void gitHubsHeadOfADeletedForkIsAForkNotTheTargetRepository() throws Exception {
        String body = payload("github-pull_request").replace("\"CONTRIBUTOR\"", "\"OWNER\"")
                .replaceFirst("(?s)\"repo\": \\{\\s*\"id\": 186853003.*?\"ssh_url\": \"git@github.com:octocat/web.git\"\\s*}", "\"repo\": null");
        assertThat(body).doesNotContain("octocat/web");
        assertThat(github(body)).isEqualTo(new PullFacts.Known("main", "octocat", true, false));
    }

    @Test
    void giteaTrustsAHeadBranchInTheTargetRepositoryButNotAnAgitHead() throws Exception {
        String fork = payload("gitea-pull_request");
        assertThat(gitea(fork)).isEqualTo(new PullFacts.Known("main", "gitea", true, false));
        String sameRepo = fork.replace("\"repo_id\": 141", "\"repo_id\": 140");
        assertThat(gitea(sameRepo)).isEqualTo(new PullFacts.Known("main", "gitea", false, true));
        assertThat(gitea(sameRepo.replace("\"ref\": \"readme\"", "\"ref\": \"refs/pull/7/head\"")))
                .as("AGit: anyone who may read can open it").isEqualTo(new PullFacts.Known("main", "gitea", false, false));
        assertThat(gitea(fork.replace("\"repo_id\": 141", "\"repo_id\": \"140\"")))
                .as("an id that is not a number").isEqualTo(new PullFacts.Known("main", "gitea", true, false));
        assertThat(gitea(fork.replace("\"repo_id\": 141,", "").replace("\"repo_id\": 140,", "")))
                .as("no ids at all").isEqualTo(new PullFacts.Known("main", "gitea", true, false));
    }

    @Test
    void gitLabTrustsASourceInTheTargetProjectAndNamesTheAuthorOnlyWhenTheActorIsIt() throws Exception {
        String fork = payload("gitlab-merge_request");
        assertThat(pull(ForgeKind.GITLAB, "Merge Request Hook", fork).number()).isEqualTo(1);
        assertThat(gitlab(fork)).as("user 1 acted on author 51's merge request").isEqualTo(new PullFacts.Known("main", null, true, false));
        String sameProject = fork.replace("\"source_project_id\": 14", "\"source_project_id\": 15");
        assertThat(gitlab(sameProject)).isEqualTo(new PullFacts.Known("main", null, false, true));
        assertThat(gitlab(sameProject.replace("\"author_id\": 51", "\"author_id\": 1")))
                .isEqualTo(new PullFacts.Known("main", "root", false, true));
    }

    @Test
    void numbersOutOfRangeAndNamesThatAreNotNamesLeaveThePullRequestUndescribed() throws Exception {
        String body = payload("github-pull_request");
        for (String number : new String[] {"0", "-7", "1000000000", "42.5", "\"42\"", "99999999999999999999999"}) {
            HookEvent.PullRequest pr = pull(ForgeKind.GITHUB, "pull_request", body.replace("\"number\": 42", "\"number\": " + number));
            assertThat(pr.number()).as(number).isZero();
            assertThat(pr.facts()).as(number).isInstanceOf(PullFacts.Unusable.class);
        }
        assertThat(pull(ForgeKind.GITHUB, "pull_request", body.replace("\"number\": 42", "\"number\": 999999999")).number())
                .isEqualTo(999_999_999);
        for (String target : new String[] {"../main", "refs/heads/main", "-main", "main.lock", "ma in", "main\\n", "a//b", "a/.b",
                "x@{1}", "", "ma~1", "m".repeat(256)}) {
            assertThat(github(body.replace("\"ref\": \"main\"", "\"ref\": \"" + target + "\"")))
                    .as(target).isEqualTo(new PullFacts.Unusable("its target is not a branch name"));
        }
        assertThat(github(body.replace("\"ref\": \"main\"", "\"ref\": 7"))).isInstanceOf(PullFacts.Unusable.class);
        assertThat(github(body.replace("\"ref\": \"main\"", "\"ref\": \"release/2.x\"")))
                .isEqualTo(new PullFacts.Known("release/2.x", "octocat", true, false));
        for (String login : new String[] {"octo cat", "-octo", "a".repeat(101), "<b>"}) {
            assertThat(github(body.replace("\"login\": \"octocat\", \"id\": 21031067, \"type\": \"User\"},\n    \"body\"",
                    "\"login\": \"" + login + "\", \"id\": 21031067, \"type\": \"User\"},\n    \"body\"")))
                    .as(login).isEqualTo(new PullFacts.Unusable("its author is not a user name"));
        }
        assertThat(github(body.replace("\"login\": \"octocat\", \"id\": 21031067, \"type\": \"User\"},\n    \"body\"",
                "\"login\": \"octo\\u0000\", \"id\": 21031067, \"type\": \"User\"},\n    \"body\"")))
                .as("a control character: not said, so unknown").isEqualTo(new PullFacts.Known("main", null, true, false));
        assertThat(github(body.replace("\"login\": \"octocat\", \"id\": 21031067, \"type\": \"User\"},\n    \"body\"",
                "\"login\": \"dependabot[bot]\", \"id\": 1, \"type\": \"Bot\"},\n    \"body\"")))
                .isEqualTo(new PullFacts.Known("main", "dependabot[bot]", true, false));
    }
}
