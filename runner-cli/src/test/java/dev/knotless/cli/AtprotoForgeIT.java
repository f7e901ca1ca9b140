package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.xrpc.Records;
import dev.knotless.atproto.xrpc.XrpcClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon on the ATProto forge, end to end against the real reference PDS and PLC directory
 * ({@code scripts/pds up}; skipped with a reason when it is not running): a runner account and a
 * repository owner's account are made; the owner writes a {@code dev.knotless.repo} record naming
 * the runner's DID and a bare repository's path as its clone URL; the daemon, logged in as the
 * runner, finds it, a push runs, and the check appears as a {@code dev.knotless.check} record in
 * the runner's own repository with the run's status, its steps and its log as a blob, and {@code
 * checks verify} proves it was signed by the runner's repository.
 */
class AtprotoForgeIT {

    static final ObjectMapper JSON = SuitePds.JSON;

    @TempDir Path tmp;

    @Test
    void aRepositoryRecordNamingTheRunnerRunsAndItsCheckIsARecordOfTheRunner() throws Exception {
        Properties env = SuitePds.env();
        HttpUrl pds = HttpUrl.get(env.getProperty("KNOTLESS_PDS_URL"));
        SuitePds.Account runner = SuitePds.account(pds, "runner");
        SuitePds.Account owner = SuitePds.account(pds, "owner");

        PushedRepo repo = PushedRepo.create(tmp, "web", """
                on: [push]
                steps:
                  - name: talk
                    run: echo hello from the atproto forge
                """);
        Path bare = repo.bare();

        XrpcClient ownerClient = new XrpcClient(new OkHttpClient(), pds, owner.identity(), JSON);
        ObjectNode record = JSON.createObjectNode().put("$type", "dev.knotless.repo").put("name", "web")
                .put("cloneUrl", bare.toString()).put("defaultBranch", "main").put("createdAt", Instant.now().toString());
        record.putArray("runners").add(runner.did());
        Records.Written repoRecord = ownerClient.putRecord(owner.did(), "dev.knotless.repo", "web", record);

        Path identity = tmp.resolve("identity");
        Files.writeString(identity, "identifier=" + runner.handle() + "\npassword=" + runner.identity().password() + "\n");
        Files.setPosixFilePermissions(identity, PosixFilePermissions.fromString("rw-------"));
        String repoName = owner.did().replace(':', '-') + "/web";

        List<String> args = new ArrayList<>(List.of("--state-dir", tmp.resolve("state").toString(), "--discover",
                "--forge", "atproto", "--pds", pds.toString(), "--identity", identity.toString(), "--plc", env.getProperty("KNOTLESS_PLC_URL"), "--atproto-scan", "1s",
                "--poll-interval", "200ms", "--kill-grace", "2s", "--image", ExecIT.IMAGE));
        try (DaemonProcess d = DaemonProcess.start(DaemonProcess.checkout(), tmp.resolve("daemon.log"), args)) {
            d.await("the record is found", Duration.ofSeconds(60), () -> d.log().contains("atproto: watching " + repoName));
            d.awaitBaseline(tmp.resolve("state"), repoName);
            String sha = repo.push("a.txt", "pushed");

            XrpcClient reader = new XrpcClient(new OkHttpClient(), pds, null, JSON);
            Records.Stored[] check = new Records.Stored[1];
            d.await("a finished check record in the runner's repository", Duration.ofSeconds(120), () -> {
                try {
                    for (Records.Stored s : reader.listRecords(runner.did(), "dev.knotless.check", 50, null).records()) {
                        if (sha.equals(s.value().path("commit").asText()) && s.value().path("status").asText().equals("success")
                                && s.value().has("log")) {
                            check[0] = s;
                            return true;
                        }
                    }
                    return false;
                } catch (Exception e) {
                    return false;
                }
            });
            JsonNode value = check[0].value();
            assertThat(value.path("repo").asText()).isEqualTo(repoRecord.uri());
            assertThat(value.path("runner").asText()).isEqualTo(runner.did());
            assertThat(value.path("steps").get(0).path("name").asText()).isEqualTo("talk");
            assertThat(value.path("steps").get(0).path("exitCode").asInt()).isZero();
            byte[] log = reader.getBlob(runner.did(), value.path("log").path("ref").path("$link").asText(), 2 << 20);
            assertThat(new String(log, StandardCharsets.UTF_8)).contains("hello from the atproto forge");
            assertThat(d.log()).doesNotContain(runner.identity().password());

            // Anyone can check that the runner's PDS signed it: the proof against the runner's DID document.
            var verified = ChecksVerifyCommandTest.cli("checks", "verify", check[0].uri(), "--plc", env.getProperty("KNOTLESS_PLC_URL"),
                    "--runner", runner.did());
            assertThat(verified.exit()).as(verified.err()).isZero();
            assertThat(verified.out()).contains("verified");
            System.out.println("AtprotoForgeIT: check record " + check[0].uri());
        }
    }
}
