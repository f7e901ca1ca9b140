package dev.knotless.checkout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.testkit.TestRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SourceTest {

    @TempDir
    Path temp;

    @Test
    void urlsAreKeptAsGivenAndNamedByTheirLastSegment() throws Exception {
        Source https = Source.of("https://example.com/org/tool.git/");
        assertThat(https.local()).isFalse();
        assertThat(https.location()).isEqualTo("https://example.com/org/tool.git");
        assertThat(https.mirrorName()).matches("tool-[0-9a-f]{12}\\.git");

        assertThat(Source.of("git@github.com:org/repo.git").mirrorName()).matches("repo-[0-9a-f]{12}\\.git");
        assertThat(Source.of("ssh://git@host:2222/srv/x").mirrorName()).matches("x-[0-9a-f]{12}\\.git");
        assertThat(Source.of("file:///srv/git/App Server.git").mirrorName()).matches("App-Server-[0-9a-f]{12}\\.git");
        assertThat(Source.of("host:").mirrorName()).matches("repo-[0-9a-f]{12}\\.git");
    }

    @Test
    void credentialsNeverReachTheNameTheMessagesOrTheHash() throws Exception {
        Source withToken = Source.of("https://user:s3cr3t-token@example.com/org/tool.git");
        Source tokenAsUser = Source.of("https://ghp_abcdef123456@example.com/org/tool.git");
        Source plain = Source.of("https://example.com/org/tool.git");

        assertThat(withToken.display()).isEqualTo("https://example.com/org/tool.git");
        assertThat(tokenAsUser.display()).isEqualTo("https://example.com/org/tool.git");
        assertThat(withToken.location()).contains("s3cr3t-token");
        assertThat(withToken.mirrorName()).isEqualTo(plain.mirrorName()).isEqualTo(tokenAsUser.mirrorName());
        assertThat(withToken.scrub("fatal: could not read from https://user:s3cr3t-token@example.com"))
                .isEqualTo("fatal: could not read from https://user:***@example.com");
        assertThat(tokenAsUser.scrub("token ghp_abcdef123456 refused")).isEqualTo("token *** refused");

        Source ssh = Source.of("ssh://deploy:hunter2@host/srv/repo");
        assertThat(ssh.display()).isEqualTo("ssh://deploy@host/srv/repo");
        assertThat(ssh.scrub("hunter2")).isEqualTo("***");
    }

    @Test
    void aLocalPathIsReadAsItsRealPath() throws Exception {
        TestRepo repo = new TestRepo(temp.resolve("my repo"));
        Files.createSymbolicLink(temp.resolve("link"), repo.dir);

        Source source = Source.of(temp.resolve("link").toString());

        assertThat(source.local()).isTrue();
        assertThat(source.location()).isEqualTo(repo.dir.toRealPath().toString());
        assertThat(source.mirrorName()).matches("my-repo-[0-9a-f]{12}\\.git");
        assertThat(Source.of(repo.dir + "/").mirrorName()).isEqualTo(source.mirrorName());
    }

    @Test
    void aMissingPathOrANonRepositoryIsAClearError() throws Exception {
        Path missing = temp.resolve("nowhere");
        assertThatThrownBy(() -> Source.of(missing.toString()))
                .isInstanceOf(CheckoutException.class)
                .hasMessage("repository path " + missing + " does not exist");

        Path plainDir = Files.createDirectories(temp.resolve("plain"));
        assertThatThrownBy(() -> Source.of(plainDir.toString()))
                .hasMessage("repository path " + plainDir + " is not a git repository (no .git in it)");
    }

    @Test
    void optionLookingNamesAreRefused() {
        assertThatThrownBy(() -> Source.of("--upload-pack=touch /tmp/x"))
                .isInstanceOf(CheckoutException.class)
                .hasMessageStartingWith("not a repository");
        assertThatThrownBy(() -> Source.of("")).isInstanceOf(CheckoutException.class);
        assertThatThrownBy(() -> Source.of("https://host/a\nb")).isInstanceOf(CheckoutException.class);
    }
}
