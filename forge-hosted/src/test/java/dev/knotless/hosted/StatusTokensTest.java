package dev.knotless.hosted;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.forge.Repository;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The status token file, and which forge and project a repository's clone URL (or its repo line) leads to. */
class StatusTokensTest {

    @TempDir Path dir;

    StatusTokens read(String text) throws Exception {
        Path f = dir.resolve("status-tokens");
        Files.writeString(f, text);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return StatusTokens.read(f);
    }

    static Repository repo(String name, String url) {
        return new Repository(name, url, "main", List.of("r1"), List.of());
    }

    @Test
    void theCloneUrlsHostPicksTheForgeAndItsPathTheProject() throws Exception {
        StatusTokens t = read("""
                # forge  api                          token
                github   https://api.github.com       ghp_one
                forgejo  https://codeberg.org         fj_two
                gitlab   https://example.org/gitlab   glpat_three
                repo     acme/mirror                  https://github.com/acme/mirrored
                """);
        assertThat(t.target(repo("acme/web", "https://github.com/acme/web.git")))
                .hasValueSatisfying(s -> assertThat(s.project()).isEqualTo("acme/web"))
                .hasValueSatisfying(s -> assertThat(s.account().kind()).isEqualTo(ForgeKind.GITHUB));
        assertThat(t.target(repo("acme/web", "git@github.com:acme/web.git"))).map(StatusTarget::project).hasValue("acme/web");
        assertThat(t.target(repo("acme/web", "ssh://git@codeberg.org/acme/web.git")))
                .hasValueSatisfying(s -> assertThat(s.account().kind()).isEqualTo(ForgeKind.GITEA));
        assertThat(t.target(repo("acme/web", "https://example.org/gitlab/group/sub/web.git")))
                .map(StatusTarget::project).hasValue("group/sub/web");
        assertThat(t.target(repo("acme/mirror", "/srv/git/mirror.git"))).map(StatusTarget::project).hasValue("acme/mirrored");
        assertThat(t.target(repo("acme/local", "/srv/git/local.git"))).isEmpty();
        assertThat(t.target(repo("acme/elsewhere", "https://git.example.net/acme/web.git"))).isEmpty();
        assertThat(t.toString()).doesNotContain("ghp_one").doesNotContain("fj_two").doesNotContain("glpat_three");
    }

    @Test
    void badLinesAreNamedByNumberWithoutTheirToken() throws Exception {
        assertThatThrownBy(() -> read("github https://api.github.com\n")).hasMessageContaining("line 1");
        assertThatThrownBy(() -> read("github ftp://x s3cr3t\n")).hasMessageContaining("line 1").hasMessageNotContaining("s3cr3t");
        assertThatThrownBy(() -> read("bitbucket https://x s3cr3t\n")).hasMessageContaining("unknown forge")
                .hasMessageNotContaining("s3cr3t");
        assertThatThrownBy(() -> read("repo acme/web /srv/git/web.git\ngithub https://api.github.com t\n")).hasMessageContaining("line 1");
        assertThatThrownBy(() -> read("repo acme/web https://github.com/acme/web\n")).hasMessageContaining("holds no");
    }
}
