package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.xrpc.Records;
import dev.knotless.atproto.xrpc.XrpcClient;
import dev.knotless.testkit.TestRepo;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery by the firehose, end to end against the real reference PDS ({@code scripts/pds up};
 * skipped with a reason when it is not running): the daemon runs with a full scan only every hour
 * and a long poll interval, so when the owner writes a repository record after the daemon started,
 * only the firehose (and the daemon woken by it) can have it watched within seconds. A push then
 * runs and its check is a record of the runner. Stopped and started again, the daemon resumes the
 * firehose from the cursor it kept, and a record written while it was down is watched.
 */
class AtprotoFirehoseIT {

    @TempDir Path tmp;

    @Test
    void aRecordWrittenWhileTheDaemonRunsIsFoundByTheFirehoseAndARestartResumesFromTheCursor() throws Exception {
        Properties env = SuitePds.env();
        HttpUrl pds = HttpUrl.get(env.getProperty("KNOTLESS_PDS_URL"));
        SuitePds.Account runner = SuitePds.account(pds, "runner");
        SuitePds.Account owner = SuitePds.account(pds, "owner");

        TestRepo work = new TestRepo(tmp.resolve("work")).workflow("ci.yaml", """
                image: %s
                on: [push]
                steps:
                  - name: talk
                    run: echo hello from the firehose
                """.formatted(DaemonIT.IMAGE));
        work.commit();
        Path web = bare(work, "web.git");
        Path api = bare(work, "api.git");

        Path identity = tmp.resolve("identity");
        Files.writeString(identity, "identifier=" + runner.handle() + "\npassword=" + runner.identity().password() + "\n");
        Files.setPosixFilePermissions(identity, PosixFilePermissions.fromString("rw-------"));
        String owned = owner.did().replace(':', '-');
        XrpcClient ownerClient = new XrpcClient(new OkHttpClient(), pds, owner.identity(), SuitePds.JSON);
        Path state = tmp.resolve("state");
        List<String> args = new ArrayList<>(List.of("--state-dir", state.toString(), "--discover",
                "--forge", "atproto", "--pds", pds.toString(), "--identity", identity.toString(), "--plc", env.getProperty("KNOTLESS_PLC_URL"), "--atproto-scan", "1h",
                "--poll-interval", "20s", "--kill-grace", "2s", "--image", ExecIT.IMAGE));

        long seq;
        try (DaemonProcess d = DaemonProcess.start(DaemonProcess.checkout(), tmp.resolve("daemon-1.log"), args)) {
            d.await("the daemon is up", DaemonProcess.STARTS, () -> d.log().contains("runner " + runner.did() + " watching"));
            d.await("the firehose is followed", Duration.ofSeconds(30), () -> d.log().contains("atproto: following the firehose of "));
            assertThat(d.log()).contains("from now (no cursor stored)");
            Thread.sleep(1500); // the start-up scan is done and the stream open: what comes next can only come by the stream

            Instant written = Instant.now();
            Records.Written webRecord = ownerClient.putRecord(owner.did(), "dev.knotless.repo", "web", record("web", web, runner.did()));
            // The scan is hourly: only the firehose brings the record within this (hang-catching) minute.
            d.await("the record is watched", Duration.ofSeconds(60), () -> d.log().contains("atproto: watching " + owned + "/web"));
            long latency = Duration.between(written, Instant.now()).toMillis();
            System.out.println("AtprotoFirehoseIT: record written -> watching in " + latency + " ms (scan 1h, poll 20s)");

            d.awaitBaseline(state, owned + "/web"); // a push before the first poll's baseline would be part of it
            String sha = work.file("a.txt", "pushed").commit();
            work.git("push", "-q", web.toString(), "HEAD:refs/heads/main");
            // Polled at the next interval (20 s): the firehose says nothing of git pushes.
            Records.Stored check = awaitCheck(d, pds, runner.did(), sha);
            assertThat(check.value().path("repo").asText()).isEqualTo(webRecord.uri());
            assertThat(check.value().path("runner").asText()).isEqualTo(runner.did());

            assertThat(d.stop(Duration.ofSeconds(60))).isZero();
            Properties cursor = new Properties();
            try (Reader r = Files.newBufferedReader(state.resolve("atproto-firehose.cursor"), StandardCharsets.UTF_8)) {
                cursor.load(r);
            }
            assertThat(cursor.getProperty("pds")).isEqualTo(pds.toString());
            seq = Long.parseLong(cursor.getProperty("seq"));
            assertThat(seq).isPositive();
        }

        // Written while no daemon runs.
        ownerClient.putRecord(owner.did(), "dev.knotless.repo", "api", record("api", api, runner.did()));
        try (DaemonProcess d = DaemonProcess.start(DaemonProcess.checkout(), tmp.resolve("daemon-2.log"), args)) {
            d.await("the daemon is up again", DaemonProcess.STARTS, () -> d.log().contains("atproto: following the firehose of "));
            Matcher from = Pattern.compile("atproto: following the firehose of \\S+ from cursor (\\d+)").matcher(d.log());
            assertThat(from.find()).as(d.log()).isTrue();
            assertThat(Long.parseLong(from.group(1))).as("resumes where it stopped").isEqualTo(seq);
            d.await("the record written while down is watched", Duration.ofSeconds(30),
                    () -> d.log().contains("atproto: watching " + owned + "/api"));
            assertThat(d.log()).as("web was watched already: the forge kept it").doesNotContain("atproto: watching " + owned + "/web");
            assertThat(d.log()).doesNotContain(runner.identity().password());
        }
    }

    private Path bare(TestRepo work, String name) throws Exception {
        Path bare = tmp.resolve(name);
        new ProcessBuilder("git", "init", "-q", "--bare", "-b", "main", bare.toString()).inheritIO().start().waitFor();
        work.git("push", "-q", bare.toString(), "HEAD:refs/heads/main");
        return bare;
    }

    private static ObjectNode record(String name, Path cloneUrl, String runnerDid) {
        ObjectNode record = SuitePds.JSON.createObjectNode().put("$type", "dev.knotless.repo").put("name", name)
                .put("cloneUrl", cloneUrl.toString()).put("defaultBranch", "main").put("createdAt", Instant.now().toString());
        record.putArray("runners").add(runnerDid);
        return record;
    }

    private static Records.Stored awaitCheck(DaemonProcess d, HttpUrl pds, String runnerDid, String sha) throws Exception {
        XrpcClient reader = new XrpcClient(new OkHttpClient(), pds, null, SuitePds.JSON);
        Records.Stored[] check = new Records.Stored[1];
        d.await("a finished check record in the runner's repository", Duration.ofSeconds(120), () -> {
            try {
                for (Records.Stored s : reader.listRecords(runnerDid, "dev.knotless.check", 50, null).records()) {
                    if (sha.equals(s.value().path("commit").asText()) && s.value().path("status").asText().equals("success")) {
                        check[0] = s;
                        return true;
                    }
                }
                return false;
            } catch (Exception e) {
                return false;
            }
        });
        return check[0];
    }
}
