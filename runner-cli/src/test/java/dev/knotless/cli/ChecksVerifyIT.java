package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.xrpc.XrpcClient;
import java.util.Properties;
import okhttp3.HttpUrl;
import org.junit.jupiter.api.Test;

/**
 * {@code knotless-run checks verify} against the reference PDS and PLC that {@code scripts/pds up}
 * started (skipped, saying so, when it has not): a runner's check verifies, with the PDS found
 * from the DID document; another account's copy of it does not verify as the runner's.
 */
class ChecksVerifyIT {

    private final ObjectMapper json = new ObjectMapper();

    private record Account(String did, XrpcClient client) {}

    private Account account(HttpUrl pds, String prefix) throws Exception {
        SuitePds.Account a = SuitePds.account(pds, prefix);
        return new Account(a.did(), a.client(pds));
    }

    @Test
    void theRunnersCheckVerifiesAndACopyElsewhereIsNotTheRunners() throws Exception {
        Properties env = SuitePds.env();
        HttpUrl pds = HttpUrl.get(env.getProperty("KNOTLESS_PDS_URL"));
        String plc = env.getProperty("KNOTLESS_PLC_URL");
        Account runner = account(pds, "runner");
        Account copier = account(pds, "copier");
        ObjectNode check = json.createObjectNode().put("$type", "dev.knotless.check").put("runId", "20261203-100000-abcdef")
                .put("repo", "https://git.example/alice/hello").put("commit", "0123456789abcdef0123456789abcdef01234567")
                .put("workflow", "unit").put("status", "success").put("createdAt", "2026-12-03T10:00:00Z");
        String uri = runner.client().putRecord(runner.did(), "dev.knotless.check", "20261203-100000-abcdef", check).uri();

        long t0 = System.nanoTime();
        var ok = ChecksVerifyCommandTest.cli("checks", "verify", uri, "--plc", plc, "--runner", runner.did());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(ok.exit()).as(ok.err()).isZero();
        assertThat(ok.out()).contains("record     " + uri).contains("signed by  did:key:z").contains("repository " + runner.did())
                .endsWith("verified\n");
        System.out.printf("checks verify, first in this JVM: %d ms%n%s", ms, ok.out());

        String copy = copier.client().putRecord(copier.did(), "dev.knotless.check", "20261203-100000-abcdef", check).uri();
        var refused = ChecksVerifyCommandTest.cli("checks", "verify", copy, "--plc", plc, "--pds", pds.toString(), "--runner", runner.did());
        assertThat(refused.exit()).isEqualTo(ChecksVerifyCommand.NOT_VERIFIED);
        assertThat(refused.err()).startsWith("not verified: the record is in the repository of " + copier.did())
                .contains("not of the runner " + runner.did());
        assertThat(refused.out()).doesNotContain("verified");
        System.out.print(refused.err());
    }
}
