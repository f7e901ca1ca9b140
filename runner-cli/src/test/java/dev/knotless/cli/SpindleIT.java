package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.xrpc.Records;
import dev.knotless.atproto.xrpc.XrpcClient;
import dev.knotless.spindle.JsonFrames;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon as a spindle for tangled, end to end: the real reference PDS and PLC directory
 * ({@code scripts/pds up}; skipped with a reason when it is not running) hold the owner's
 * {@code sh.tangled.spindle} record and a {@code sh.tangled.repo} record naming the spindle; a test
 * knot ({@link TestKnot}: tangled's knot is Go and cannot be built here) serves the repository's
 * git and streams a pipeline; a test appview follows {@code /events} and {@code /logs} as
 * tangled's appview does and sees pending → running → success, with the step's output, while a
 * workflow of another engine fails at once naming ours. The secret XRPCs take a service-auth
 * token the PDS mints for the owner (com.atproto.server.getServiceAuth) and refuse an expired one,
 * one for another audience, one for another method and another account's; the secret set through
 * them reaches the step that names it, masked in the log.
 */
class SpindleIT {

    static final ObjectMapper JSON = SuitePds.JSON;
    static final String HOST = "spindle.test";

    @TempDir Path tmp;

    @Test
    void aKnotsPipelineRunsAndTheAppviewSeesItsStatusesAndLog() throws Exception {
        Properties env = SuitePds.env();
        HttpUrl pds = HttpUrl.get(env.getProperty("KNOTLESS_PDS_URL"));
        SuitePds.Account owner = SuitePds.account(pds, "owner");
        SuitePds.Account stranger = SuitePds.account(pds, "other");
        XrpcClient ownerClient = owner.client(pds);

        PushedRepo repo = PushedRepo.create(tmp, "web", "steps: [{run: 'true'}]\n");
        TestKnot.serverInfo(repo.bare());
        String sha = repo.push("a.txt", "for the spindle");
        TestKnot.serverInfo(repo.bare());

        try (TestKnot knot = new TestKnot(owner.did(), "web", repo.bare()).start()) {
            ownerClient.putRecord(owner.did(), "sh.tangled.spindle", HOST, JSON.createObjectNode()
                    .put("$type", "sh.tangled.spindle").put("createdAt", Instant.now().toString()));
            Records.Written repoRecord = ownerClient.putRecord(owner.did(), "sh.tangled.repo", "3lweb", JSON.createObjectNode()
                    .put("$type", "sh.tangled.repo").put("name", "web").put("knot", knot.host()).put("spindle", HOST)
                    .put("createdAt", Instant.now().toString()));

            int port = freePort();
            List<String> args = List.of("--state-dir", tmp.resolve("state").toString(), "--spindle", HOST, "--spindle-owner",
                    owner.did(), "--spindle-listen", "127.0.0.1:" + port, "--spindle-dev", "--spindle-firehose", pds.toString(),
                    "--plc", env.getProperty("KNOTLESS_PLC_URL"), "--poll-interval", "1h", "--kill-grace", "2s",
                    "--image", ExecIT.IMAGE);
            try (DaemonProcess d = DaemonProcess.start(DaemonProcess.checkout(), tmp.resolve("daemon.log"), args)) {
                d.await("the spindle follows the knot", Duration.ofSeconds(60), () -> knot.connected() == 1
                        && d.log().contains("spindle: serving " + HOST));
                HttpUrl spindle = HttpUrl.get("http://127.0.0.1:" + port);
                OkHttpClient http = new OkHttpClient();

                // the appview checks the owner as it verifies a spindle
                assertThat(getJson(http, spindle.resolve("/xrpc/sh.tangled.owner")).path("owner").asText()).isEqualTo(owner.did());

                Appview appview = new Appview(http, spindle);
                long sent = System.nanoTime();
                knot.send(pipelineFrame("3lpipe1", knot.host(), owner.did(), sha, """
                        engine: knotless
                        when: [{event: push, branch: main}]
                        image: %s
                        steps:
                          - name: greet
                            run: echo hello from a knotless spindle
                        """.formatted(ExecIT.IMAGE)));
                String uri = "at://did:web:" + knot.host() + "/sh.tangled.pipeline/3lpipe1";
                d.await("build.yml runs", Duration.ofSeconds(120), () -> appview.statuses(uri, "build.yml").contains("running"));
                System.out.printf("SpindleIT: pipeline sent -> running seen by the appview in %d ms%n",
                        (System.nanoTime() - sent) / 1_000_000);
                d.await("build.yml succeeds", Duration.ofSeconds(120), () -> appview.statuses(uri, "build.yml").contains("success"));
                assertThat(appview.statuses(uri, "build.yml")).containsExactly("pending", "running", "success");
                d.await("both combinations of matrix.yml succeed", Duration.ofSeconds(120), () -> appview.statuses(uri,
                        "matrix.yml (n=1)").contains("success") && appview.statuses(uri, "matrix.yml (n=2)").contains("success"));
                d.await("nix.yml fails", Duration.ofSeconds(10), () -> appview.statuses(uri, "nix.yml").contains("failed"));
                assertThat(appview.event(uri, "nix.yml", "failed").path("error").asText()).contains("engine 'knotless'")
                        .contains("'nixery'");

                // a viewer of one workflow's log
                JsonFrames logs = new JsonFrames(http, spindle.resolve("/logs/" + knot.host() + "/3lpipe1/build.yml").toString());
                d.await("the log ends", Duration.ofSeconds(30), () -> logs.closedWith() != 0);
                assertThat(logs.closedWith()).isEqualTo(1000);
                assertThat(logs.frames().stream().map(l -> l.path("content").asText()).collect(Collectors.joining("\n")))
                        .contains("hello from a knotless spindle");
                assertThat(logs.frames()).anySatisfy(l -> {
                    assertThat(l.path("kind").asText()).isEqualTo("control");
                    assertThat(l.path("step_status").asText()).isEqualTo("start");
                });

                // secrets: a token for this spindle and this method, from the repository's owner
                String add = "sh.tangled.repo.addSecret";
                ObjectNode secret = JSON.createObjectNode().put("repo", repoRecord.uri()).put("key", "GREETING")
                        .put("value", "s3cret-spindle-value");
                assertThat(post(http, spindle.resolve("/xrpc/" + add), token(pds, owner, "did:web:" + HOST, add, null), secret))
                        .isEqualTo(200);
                assertThat(post(http, spindle.resolve("/xrpc/" + add), token(pds, owner, "did:web:other.test", add, null), secret))
                        .isEqualTo(401);
                assertThat(post(http, spindle.resolve("/xrpc/" + add), token(pds, owner, "did:web:" + HOST,
                        "sh.tangled.repo.removeSecret", null), secret)).isEqualTo(401);
                assertThat(post(http, spindle.resolve("/xrpc/" + add), token(pds, stranger, "did:web:" + HOST, add, null), secret))
                        .isEqualTo(403);
                // the PDS mints no token already expired: one that expires in 3 s, used after its 5 s of leeway
                long exp = Instant.now().getEpochSecond() + 3;
                String expired = token(pds, owner, "did:web:" + HOST, add, exp);
                Thread.sleep(Math.max(0, (exp + 6) * 1000 - System.currentTimeMillis()));
                assertThat(post(http, spindle.resolve("/xrpc/" + add), expired, secret)).isEqualTo(401);
                String list = "sh.tangled.repo.listSecrets";
                JsonNode listed = getJson(http, spindle.resolve("/xrpc/" + list).newBuilder().addQueryParameter("repo", repoRecord.uri())
                        .build(), token(pds, owner, "did:web:" + HOST, list, null));
                assertThat(listed.path("secrets")).singleElement().satisfies(s -> {
                    assertThat(s.path("key").asText()).isEqualTo("GREETING");
                    assertThat(s.path("createdBy").asText()).isEqualTo(owner.did());
                    assertThat(s.has("value")).isFalse();
                });

                // the secret reaches the step that names it, and the log shows it masked
                knot.send(pipelineFrame("3lpipe2", knot.host(), owner.did(), sha, """
                        engine: knotless
                        image: %s
                        steps:
                          - name: use
                            secrets: [GREETING]
                            run: test "$GREETING" = s3cret-spindle-value && echo "got $GREETING"
                        """.formatted(ExecIT.IMAGE)));
                String uri2 = "at://did:web:" + knot.host() + "/sh.tangled.pipeline/3lpipe2";
                d.await("the secret's run succeeds", Duration.ofSeconds(120), () -> appview.statuses(uri2, "build.yml").contains("success"));
                JsonFrames logs2 = new JsonFrames(http, spindle.resolve("/logs/" + knot.host() + "/3lpipe2/build.yml").toString());
                d.await("the second log ends", Duration.ofSeconds(30), () -> logs2.closedWith() != 0);
                String text = logs2.frames().stream().map(l -> l.path("content").asText()).collect(Collectors.joining("\n"));
                assertThat(text).contains("got ***").doesNotContain("s3cret-spindle-value");
                appview.close();
            }
        }
    }

    /** A knot's frame of a push pipeline: {@code build.yml} and a matrix of ours, and one of tangled's default engine. */
    static String pipelineFrame(String rkey, String knot, String did, String sha, String buildYaml) {
        ObjectNode event = JSON.createObjectNode();
        ObjectNode trigger = event.putObject("triggerMetadata").put("kind", "push");
        trigger.putObject("repo").put("knot", knot).put("did", did).put("repo", "web").put("defaultBranch", "main");
        trigger.putObject("push").put("ref", "refs/heads/main").put("newSha", sha).put("oldSha", "0".repeat(40));
        var workflows = event.putArray("workflows");
        workflows.addObject().put("name", "build.yml").put("engine", "knotless").put("raw", buildYaml)
                .putObject("clone").put("depth", 1).put("skip", false).put("submodules", false);
        workflows.addObject().put("name", "matrix.yml").put("engine", "knotless").put("raw", """
                engine: knotless
                image: %s
                matrix: {n: ['1', '2']}
                steps: [{run: 'echo cell $KNOTLESS_MATRIX_N'}]
                """.formatted(ExecIT.IMAGE));
        workflows.addObject().put("name", "nix.yml").put("engine", "nixery").put("raw", "steps: []\n")
                .putObject("clone").put("depth", 1).put("skip", false).put("submodules", false);
        return JSON.createObjectNode().put("rkey", rkey).put("nsid", "sh.tangled.pipeline").<ObjectNode>set("event", event)
                .toString();
    }

    /** A service-auth token the PDS mints for {@code account} ({@code com.atproto.server.getServiceAuth}). */
    static String token(HttpUrl pds, SuitePds.Account account, String aud, String lxm, Long exp) throws IOException {
        XrpcClient client = account.client(pds);
        HttpUrl.Builder url = pds.resolve("/xrpc/com.atproto.server.getServiceAuth").newBuilder()
                .addQueryParameter("aud", aud).addQueryParameter("lxm", lxm);
        if (exp != null) {
            url.addQueryParameter("exp", String.valueOf(exp));
        }
        Request request = new Request.Builder().url(url.build())
                .header("Authorization", "Bearer " + client.login().accessJwt()).get().build();
        try (Response r = new OkHttpClient().newCall(request).execute()) {
            String body = r.body().string();
            assertThat(r.code()).as("getServiceAuth: %s", body).isEqualTo(200);
            return JSON.readTree(body).path("token").asText();
        }
    }

    static int post(OkHttpClient http, HttpUrl url, String token, JsonNode body) throws IOException {
        Request request = new Request.Builder().url(url).header("Authorization", "Bearer " + token)
                .post(RequestBody.create(body.toString(), MediaType.get("application/json"))).build();
        try (Response r = http.newCall(request).execute()) {
            return r.code();
        }
    }

    static JsonNode getJson(OkHttpClient http, HttpUrl url) throws IOException {
        return getJson(http, url, null);
    }

    static JsonNode getJson(OkHttpClient http, HttpUrl url, String token) throws IOException {
        Request.Builder b = new Request.Builder().url(url).get();
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        try (Response r = http.newCall(b.build()).execute()) {
            String body = r.body().string();
            assertThat(r.code()).as("GET %s: %s", url, body).isEqualTo(200);
            return JSON.readTree(body);
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** What tangled's appview does with a spindle's {@code /events}: keeps every status it is sent. */
    static final class Appview implements AutoCloseable {
        private final JsonFrames frames;

        Appview(OkHttpClient http, HttpUrl spindle) {
            // cursor 1: everything the spindle stored, as an appview that last read long ago (backfill)
            frames = new JsonFrames(http, spindle.resolve("/events?cursor=1").toString());
        }

        List<String> statuses(String pipeline, String workflow) {
            return frames.frames().stream().filter(f -> f.path("nsid").asText().equals("sh.tangled.pipeline.status"))
                    .map(f -> f.path("event"))
                    .filter(e -> e.path("pipeline").asText().equals(pipeline) && e.path("workflow").asText().equals(workflow))
                    .map(e -> e.path("status").asText()).toList();
        }

        JsonNode event(String pipeline, String workflow, String status) {
            return frames.frames().stream().map(f -> f.path("event")).filter(e -> e.path("pipeline").asText().equals(pipeline)
                    && e.path("workflow").asText().equals(workflow) && e.path("status").asText().equals(status)).findFirst()
                    .orElseThrow();
        }

        @Override
        public void close() {
            frames.close();
        }
    }
}
