package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.xrpc.Identity;
import dev.knotless.atproto.xrpc.XrpcClient;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Assumptions;

/**
 * The real PDS that {@code scripts/pds up} started, found through the env file it writes
 * ({@code KNOTLESS_PDS_ENV}, else {@code /var/lib/knotless-pds/pds.env}), and accounts on it.
 */
record TestPds(HttpUrl url, String plcUrl, Path script) {

    static final Path DEFAULT_ENV = Path.of("/var/lib/knotless-pds/pds.env");

    static Path envFile() {
        return Optional.ofNullable(System.getenv("KNOTLESS_PDS_ENV")).map(Path::of).orElse(DEFAULT_ENV);
    }

    /** Skips the test, saying how to start the PDS, when {@code scripts/pds up} has not run. */
    static void assumeUp() {
        Path file = envFile();
        Assumptions.assumeTrue(Files.isRegularFile(file),
                () -> "skipped: no PDS (" + file + " is missing): run scripts/pds up first (scripts/test does)");
    }

    /** The PDS of the suite, or empty when {@code scripts/pds up} has not run; fails when it runs but does not answer. */
    static Optional<TestPds> find() throws IOException {
        Path file = envFile();
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        TestPds pds = new TestPds(HttpUrl.get(p.getProperty("KNOTLESS_PDS_URL")), p.getProperty("KNOTLESS_PLC_URL"),
                Path.of(p.getProperty("KNOTLESS_PDS_SCRIPT")));
        pds.requireHealthy();
        return Optional.of(pds);
    }

    void requireHealthy() {
        try (var r = new OkHttpClient().newCall(new okhttp3.Request.Builder().url(url.resolve("/xrpc/_health")).build()).execute()) {
            if (!r.isSuccessful()) {
                fail("the PDS at " + url + " answers _health with HTTP " + r.code() + " (scripts/pds status)");
            }
        } catch (IOException e) {
            fail("the env file names a PDS at " + url + " that does not answer: " + e.getMessage()
                    + " (scripts/pds up, or scripts/pds down to skip these tests)");
        }
    }

    /** An account made on this PDS ({@code createAccount}), with an app password for the runner to log in with. */
    record Account(String did, String handle, Identity appPassword) {}

    static Account createAccount(HttpUrl pds, String prefix) throws IOException {
        ObjectMapper json = new ObjectMapper();
        String suffix = HexFormat.of().formatHex(new SecureRandom().generateSeed(4));
        String handle = prefix + "-" + suffix + ".test";
        String password = "pw-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(12));
        XrpcClient anonymous = new XrpcClient(new OkHttpClient(), pds, null, json);
        JsonNode made = anonymous.procedure("com.atproto.server.createAccount", json.createObjectNode()
                .put("handle", handle).put("email", prefix + "-" + suffix + "@example.com").put("password", password), false);
        XrpcClient owner = new XrpcClient(new OkHttpClient(), pds, new Identity(handle, password), json);
        JsonNode app = owner.procedure("com.atproto.server.createAppPassword", json.createObjectNode().put("name", "knotless-run"), true);
        return new Account(made.get("did").asText(), handle, new Identity(handle, app.get("password").asText()));
    }

    /** Runs {@code scripts/pds ARGS} with {@code extraEnv}; fails the test with its output when it fails. */
    void script(Map<String, String> extraEnv, String... args) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(concat(List.of("bash", script.toString()), args)).redirectErrorStream(true);
        pb.environment().putAll(extraEnv);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            fail("scripts/pds " + String.join(" ", args) + " failed:\n" + new String(out, StandardCharsets.UTF_8));
        }
    }

    /**
     * Validates {@code records} against docs/reference/lexicons with the reference validator
     * ({@code scripts/pds validate}); fails the test naming the first that does not fit.
     */
    void validate(List<JsonNode> records) throws IOException, InterruptedException {
        Path lexicons = script.getParent().getParent().resolve("docs/reference/lexicons");
        List<String> args = new java.util.ArrayList<>(List.of("bash", script.toString(), "validate"));
        try (var files = Files.list(lexicons)) {
            files.filter(f -> f.toString().endsWith(".json")).sorted().forEach(f -> args.add(f.toString()));
        }
        Process p = new ProcessBuilder(args).redirectErrorStream(true).start();
        try (var in = p.getOutputStream()) {
            for (JsonNode r : records) {
                in.write((r.toString() + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            fail("records do not fit docs/reference/lexicons: " + new String(out, StandardCharsets.UTF_8));
        }
    }

    private static List<String> concat(List<String> a, String[] b) {
        var all = new java.util.ArrayList<>(a);
        all.addAll(List.of(b));
        return all;
    }
}
