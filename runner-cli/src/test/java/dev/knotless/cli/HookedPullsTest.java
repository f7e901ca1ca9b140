package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.forge.Cursors;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.embedded.EmbeddedForge.PullInfo;
import dev.knotless.forge.Repository;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A pull-request hook's metadata in the embedded forge: target and author replaced, trust only raised. */
class HookedPullsTest {

    @TempDir Path dir;
    EmbeddedForge local;
    HookedPulls pulls;

    @BeforeEach
    void setUp() throws Exception {
        local = new EmbeddedForge(dir, Cursors.inMemory());
        local.add(new Repository("acme/web", "/srv/web.git", "main", List.of("r1"), List.of()));
        pulls = new HookedPulls(url -> url.equals("/srv/web.git") ? Optional.of("acme/web") : Optional.empty(), local);
    }

    @Test
    void aWatchedRepositorysPullRequestIsDescribed() throws Exception {
        assertThat(pulls.describe("/srv/web.git", 7, new PullInfo("main", "octocat", false))).contains("acme/web");
        assertThat(local.pull("acme/web", 7)).contains(new PullInfo("main", "octocat", false));
        assertThat(pulls.describe("/srv/other.git", 7, new PullInfo("main", "octocat", false))).isEmpty();
    }

    @Test
    void aHookRaisesTrustButNeverLowersAnOperatorsGrant() throws Exception {
        local.describePull("acme/web", 3, new PullInfo(null, null, true));
        pulls.describe("/srv/web.git", 3, new PullInfo("release", "mallory", false));
        assertThat(local.pull("acme/web", 3)).contains(new PullInfo("release", "mallory", true));

        local.describePull("acme/web", 4, new PullInfo("main", "alice", false));
        pulls.describe("/srv/web.git", 4, new PullInfo("main", "alice", true));
        assertThat(local.pull("acme/web", 4)).contains(new PullInfo("main", "alice", true));
        pulls.describe("/srv/web.git", 5, new PullInfo("main", null, false));
        assertThat(local.pull("acme/web", 5)).contains(new PullInfo("main", null, false));
    }

    @Test
    void aRepositoryWatchedButNotInTheEmbeddedForgeIsNotDescribed() throws Exception {
        HookedPulls elsewhere = new HookedPulls(url -> Optional.of("acme/gone"), local);
        assertThat(elsewhere.describe("/srv/gone.git", 1, new PullInfo("main", "x", false))).isEmpty();
    }
}
