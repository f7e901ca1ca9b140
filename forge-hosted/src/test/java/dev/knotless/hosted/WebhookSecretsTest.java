package dev.knotless.hosted;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The webhook secret file: its lines, its mode, and errors that never repeat a secret. */
class WebhookSecretsTest {

    @TempDir Path dir;

    Path file(String text, String mode) throws Exception {
        Path f = dir.resolve("secrets");
        Files.writeString(f, text);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    @Test
    void eachForgeTakesEveryOneOfItsSecretsAndForgejoIsGitea() throws Exception {
        WebhookSecrets s = WebhookSecrets.read(file("# comment\n\ngithub old-secret\ngithub new-secret\nforgejo fj\n", "rw-------"));
        assertThat(s.of(ForgeKind.GITHUB)).hasSize(2);
        assertThat(s.of(ForgeKind.GITEA)).hasSize(1);
        assertThat(s.of(ForgeKind.GITLAB)).isEmpty();
        assertThat(s.toString()).doesNotContain("old-secret").doesNotContain("new-secret").doesNotContain("fj");
    }

    @Test
    void aRepositorysOwnSecretSignsForItAloneAndAForgeWideOneIsNamed() throws Exception {
        WebhookSecrets s = WebhookSecrets.read(file("github acme/web w3b-secret\ngitlab g1t-secret\n", "rw-------"));
        WebhookSecrets.Key web = s.of(ForgeKind.GITHUB).getFirst();
        assertThat(web.signsFor("acme/web")).isTrue();
        assertThat(web.signsFor("acme/api")).isFalse();
        assertThat(s.of(ForgeKind.GITLAB).getFirst().signsFor("acme/api")).isTrue();
        assertThat(s.forgeWide()).containsExactly(ForgeKind.GITLAB);
        Path bad = file("github not-a-repo s3cret\n", "rw-------");
        assertThatThrownBy(() -> WebhookSecrets.read(bad)).hasMessageContaining("line 1").hasMessageNotContaining("s3cret");
    }

    @Test
    void aFileOthersMayReadIsRefused() throws Exception {
        Path f = file("github s3cret\n", "rw-r--r--");
        assertThatThrownBy(() -> WebhookSecrets.read(f)).hasMessage(f + " has mode 0644; it holds secrets, so it must be 0600"
                + " or 0400 (chmod 600 " + f + ")");
    }

    @Test
    void aBadLineIsNamedByNumberWithoutItsText() throws Exception {
        Path f = file("github s3cret\nbitbucket t0psecret\n", "rw-------");
        assertThatThrownBy(() -> WebhookSecrets.read(f)).hasMessageContaining("line 2").hasMessageNotContaining("t0psecret");
        Path g = file("github two words\n", "rw-------");
        assertThatThrownBy(() -> WebhookSecrets.read(g)).hasMessageContaining("line 1").hasMessageNotContaining("words");
        Path empty = file("# nothing\n", "rw-------");
        assertThatThrownBy(() -> WebhookSecrets.read(empty)).hasMessageContaining("holds no");
    }
}
