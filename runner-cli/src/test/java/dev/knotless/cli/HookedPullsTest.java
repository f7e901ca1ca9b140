package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.forge.Cursors;
import dev.knotless.forge.Repository;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.embedded.EmbeddedForge.PullInfo;
import dev.knotless.hosted.PullConfirmation;
import dev.knotless.testkit.TestRepo;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pull-request hook's metadata in the embedded forge: target and author replaced, an operator's
 * grant kept, trust said only for a pull request that exists, and a later hook's word the trust.
 */
class HookedPullsTest {

    @TempDir Path dir;
    TestRepo web;
    EmbeddedForge local;
    HookedPulls pulls;

    @BeforeEach
    void setUp() throws Exception {
        web = new TestRepo(dir.resolve("web"));
        web.file("a.txt", "1").commit();
        for (int n : new int[] {3, 4, 7}) { // pull requests 3, 4 and 7 exist; 5 and 9 do not
            web.git("update-ref", "refs/pull/" + n + "/head", "HEAD");
        }
        local = new EmbeddedForge(dir.resolve("forge"), Cursors.inMemory());
        local.add(new Repository("acme/web", web.dir.toString(), "main", List.of("r1"), List.of()));
        pulls = new HookedPulls(url -> url.equals(web.dir.toString()) ? Optional.of("acme/web") : Optional.empty(), local);
    }

    @Test
    void aWatchedRepositorysPullRequestIsDescribed() throws Exception {
        assertThat(pulls.describe(web.dir.toString(), 7, new PullInfo("main", "octocat", false))).contains("acme/web");
        assertThat(local.pull("acme/web", 7)).contains(new PullInfo("main", "octocat", false, PullInfo.HOOK));
        assertThat(pulls.describe("/srv/other.git", 7, new PullInfo("main", "octocat", false))).isEmpty();
    }

    @Test
    void anOperatorsGrantIsKeptWhateverAHookSays() throws Exception {
        local.describePull("acme/web", 3, new PullInfo(null, null, true));
        pulls.describe(web.dir.toString(), 3, new PullInfo("release", "mallory", false));
        assertThat(local.pull("acme/web", 3)).contains(new PullInfo("release", "mallory", true, null));
    }

    /** A signed hook said pull request 9 was trusted before it existed; its later run must not be. */
    @Test
    void aHookSaysTrustedOnlyForAPullRequestThatExists() throws Exception {
        pulls.describe(web.dir.toString(), 9, new PullInfo("main", "mallory", true));
        assertThat(local.pull("acme/web", 9)).contains(new PullInfo("main", "mallory", false, PullInfo.HOOK));

        pulls.describe(web.dir.toString(), 4, new PullInfo("main", "alice", true));
        assertThat(local.pull("acme/web", 4)).contains(new PullInfo("main", "alice", true, PullInfo.HOOK));
    }

    /** Where a status token lets the forge's API be asked, its word is needed too; a refusal is one line. */
    @Test
    void aHookSaysTrustedOnlyWhereTheForgesApiAgrees() throws Exception {
        List<String> lines = new java.util.ArrayList<>();
        HookedPulls asking = new HookedPulls(pulls.watched(), local, (repo, number) -> number == 3
                ? new PullConfirmation.Answer.Trusted()
                : new PullConfirmation.Answer.Untrusted("github's API says pull request " + number + " is not trusted"), lines::add);
        asking.describe(web.dir.toString(), 3, new PullInfo("main", "alice", true));
        asking.describe(web.dir.toString(), 4, new PullInfo("main", "mallory", true));

        assertThat(local.pull("acme/web", 3)).contains(new PullInfo("main", "alice", true, PullInfo.HOOK));
        assertThat(local.pull("acme/web", 4)).contains(new PullInfo("main", "mallory", false, PullInfo.HOOK));
        assertThat(lines).containsExactly("acme/web pull request #4: described untrusted, not as its hook said:"
                + " github's API says pull request 4 is not trusted");
    }

    @Test
    void aLaterHookLowersTrustAnEarlierHookRaised() throws Exception {
        pulls.describe(web.dir.toString(), 4, new PullInfo("main", "alice", true));
        pulls.describe(web.dir.toString(), 4, new PullInfo("main", "alice", false));
        assertThat(local.pull("acme/web", 4)).contains(new PullInfo("main", "alice", false, PullInfo.HOOK));
    }

    @Test
    void aRepositoryWatchedButNotInTheEmbeddedForgeIsNotDescribed() throws Exception {
        HookedPulls elsewhere = new HookedPulls(url -> Optional.of("acme/gone"), local);
        assertThat(elsewhere.describe("/srv/gone.git", 1, new PullInfo("main", "x", false))).isEmpty();
    }
}
