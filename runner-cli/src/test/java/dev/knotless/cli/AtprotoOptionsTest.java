package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.atproto.xrpc.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtprotoOptionsTest {

    @TempDir Path dir;

    AtprotoOptions options(String forge, String pds, Path identity) {
        AtprotoOptions o = new AtprotoOptions();
        o.forge = forge;
        o.pds = pds;
        o.identity = identity;
        o.scan = "30s";
        return o;
    }

    @Test
    void anIdentityFileOthersMayReadIsRefusedBeforeAnythingIsSent() throws Exception {
        Path identity = dir.resolve("identity");
        Files.writeString(identity, "identifier=runner.test\npassword=app-password\n");
        Files.setPosixFilePermissions(identity, PosixFilePermissions.fromString("rw-r--r--"));
        // The PDS is a port nobody listens on: the mode is refused before any connection is tried.
        assertThatThrownBy(() -> options("atproto", "http://127.0.0.1:9/", identity).login())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(identity + " has mode 0644; it holds secrets, so it must be 0600 or 0400 (chmod 600 " + identity + ")");
    }

    @Test
    void theOptionsGoTogether() {
        assertThatThrownBy(() -> options("embedded", "http://127.0.0.1:9/", null).login())
                .hasMessage("--pds and --identity go with --forge atproto");
        assertThatThrownBy(() -> options("atproto", null, null).login()).hasMessage("--forge atproto needs --pds URL and --identity FILE");
        assertThatThrownBy(() -> options("gitlab", null, null).login()).hasMessage("--forge must be embedded or atproto, not 'gitlab'");
    }

    @Test
    void theRunnerIdIsTheAccountsDid() {
        AtprotoOptions.Account account = new AtprotoOptions.Account(null, null,
                new Session("did:plc:runnerrunnerrunnerrunner", "runner.test", "access", "refresh"));
        assertThat(account.runnerId(null)).isEqualTo("did:plc:runnerrunnerrunnerrunner");
        assertThat(account.runnerId("did:plc:runnerrunnerrunnerrunner")).isEqualTo("did:plc:runnerrunnerrunnerrunner");
        assertThatThrownBy(() -> account.runnerId("ci-1")).hasMessage("--runner-id ci-1 is not the DID of the --identity account"
                + " (did:plc:runnerrunnerrunnerrunner); leave --runner-id out with --forge atproto");
    }
}
