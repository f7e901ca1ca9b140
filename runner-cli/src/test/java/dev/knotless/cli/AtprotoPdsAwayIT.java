package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.xrpc.Records;
import dev.knotless.atproto.xrpc.XrpcClient;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PDS goes away in the middle of a run on the ATProto forge: the run finishes all the same
 * (publishing never blocks it), and its final check record is on the PDS after the PDS returns.
 * The test stops and starts a PDS of its own ({@code scripts/pds} with its own data directory and
 * port, sharing the suite's PLC directory), so the suite's PDS is never stopped under other tests.
 */
class AtprotoPdsAwayIT {

    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path tmp;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aRunFinishesWhileThePdsIsAwayAndItsCheckIsThereWhenItReturns() throws Exception {
        Properties shared = SuitePds.env();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Map<String, String> own = Map.of("KNOTLESS_PDS_DIR", tmp.resolve("pds").toString(), "KNOTLESS_PDS_PORT", Integer.toString(port),
                "KNOTLESS_PLC_URL", shared.getProperty("KNOTLESS_PLC_URL"));
        pds(own, "up");
        try {
            HttpUrl url = HttpUrl.get("http://127.0.0.1:" + port + "/");
            SuitePds.Account runner = SuitePds.account(url, "arun");
            SuitePds.Account owner = SuitePds.account(url, "aown");

            PushedRepo repo = PushedRepo.create(tmp, "web", """
                    on: [push]
                    steps:
                      - name: slow
                        run: sleep 8; echo finished while the pds was away
                    """);
            Path bare = repo.bare();
            ObjectNode record = JSON.createObjectNode().put("$type", "dev.knotless.repo").put("name", "web")
                    .put("cloneUrl", bare.toString()).put("defaultBranch", "main").put("createdAt", Instant.now().toString());
            record.putArray("runners").add(runner.did());
            new XrpcClient(new OkHttpClient(), url, owner.identity(), JSON).putRecord(owner.did(), "dev.knotless.repo", "web", record);
            Path identity = tmp.resolve("identity");
            Files.writeString(identity, "identifier=" + runner.handle() + "\npassword=" + runner.identity().password() + "\n");
            Files.setPosixFilePermissions(identity, PosixFilePermissions.fromString("rw-------"));

            List<String> args = new ArrayList<>(List.of("--state-dir", tmp.resolve("state").toString(), "--discover",
                    "--forge", "atproto", "--pds", url.toString(), "--identity", identity.toString(), "--plc", shared.getProperty("KNOTLESS_PLC_URL"), "--atproto-scan", "1s",
                    "--poll-interval", "200ms", "--kill-grace", "2s", "--image", ExecIT.IMAGE, "--listen", "127.0.0.1:0",
                    "--public-read"));
            try (DaemonProcess d = DaemonProcess.start(DaemonProcess.checkout(), tmp.resolve("daemon.log"), args)) {
                Matcher serving = ForgeHooksIT.SERVING.matcher("");
                d.await("it serves", DaemonProcess.STARTS, () -> serving.reset(d.log()).find());
                String base = serving.group(1).replaceAll("/$", "");
                d.await("the record is found", Duration.ofSeconds(60), () -> d.log().contains("atproto: watching "));
                Matcher watching = Pattern.compile("atproto: watching (\\S+) ").matcher(d.log());
                assertThat(watching.find()).isTrue();
                d.awaitBaseline(tmp.resolve("state"), watching.group(1)); // a push before it would be part of the baseline
                String sha = repo.push("a.txt", "pushed");

                XrpcClient reader = new XrpcClient(new OkHttpClient(), url, null, JSON);
                d.await("the running check on the PDS", Duration.ofSeconds(60), () -> status(reader, runner.did(), sha).equals("running"));

                long away = System.nanoTime();
                pds(own, "down");
                String id = runs(base).get(0).get("id").asText();
                d.await("the run ends while the PDS is away", Duration.ofSeconds(90), () -> {
                    try {
                        return runs(base).get(0).get("status").asText().equals("success");
                    } catch (Exception e) {
                        return false;
                    }
                });
                System.out.printf("AtprotoPdsAwayIT: run %s ended %d ms after the PDS went away%n", id,
                        (System.nanoTime() - away) / 1_000_000);

                long back = System.nanoTime();
                pds(own, "up", "--keep-data");
                d.await("the final check on the PDS once it is back", Duration.ofSeconds(120),
                        () -> status(reader, runner.did(), sha).equals("success"));
                System.out.printf("AtprotoPdsAwayIT: final check readable %d ms after the PDS came back%n",
                        (System.nanoTime() - back) / 1_000_000);
                assertThat(d.log()).doesNotContain("Exception").doesNotContain(runner.identity().password());
            }
        } finally {
            pds(own, "down");
        }
    }

    /** The status of the runner's check record for {@code sha}, or "" when there is none (or the PDS is away). */
    static String status(XrpcClient reader, String runner, String sha) {
        try {
            for (Records.Stored s : reader.listRecords(runner, "dev.knotless.check", 50, null).records()) {
                if (sha.equals(s.value().path("commit").asText())) {
                    return s.value().path("status").asText();
                }
            }
        } catch (Exception e) {
            // away
        }
        return "";
    }

    JsonNode runs(String base) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/api/runs")).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    static void pds(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", DaemonProcess.checkout().resolve("scripts/pds").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("scripts/pds " + String.join(" ", args) + " failed:\n" + new String(out, StandardCharsets.UTF_8));
        }
    }
}
