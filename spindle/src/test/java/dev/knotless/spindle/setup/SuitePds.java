package dev.knotless.spindle.setup;

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
import java.util.Optional;
import java.util.Properties;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The reference PDS and PLC directory that {@code scripts/pds up} starts (docs/guide/testing.md),
 * found through the env file it writes ({@code KNOTLESS_PDS_ENV}, else
 * {@code /var/lib/knotless-pds/pds.env}), and accounts made on it.
 */
record SuitePds(HttpUrl url, HttpUrl plc) {

    static final ObjectMapper JSON = new ObjectMapper();

    static Path envFile() {
        return Path.of(System.getenv().getOrDefault("KNOTLESS_PDS_ENV", "/var/lib/knotless-pds/pds.env"));
    }

    /** The suite's PDS, or empty when {@code scripts/pds up} has not run; fails when it runs but does not answer. */
    static Optional<SuitePds> find() throws IOException {
        Path file = envFile();
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        SuitePds pds = new SuitePds(HttpUrl.get(p.getProperty("KNOTLESS_PDS_URL")), HttpUrl.get(p.getProperty("KNOTLESS_PLC_URL")));
        try (Response r = new OkHttpClient().newCall(new Request.Builder().url(pds.url().resolve("/xrpc/_health")).build()).execute()) {
            if (!r.isSuccessful()) {
                fail("the PDS at " + pds.url() + " answers _health with HTTP " + r.code() + " (scripts/pds status)");
            }
        } catch (IOException e) {
            fail("the env file names a PDS at " + pds.url() + " that does not answer: " + e.getMessage()
                    + " (scripts/pds up, or scripts/pds down to skip these tests)");
        }
        return Optional.of(pds);
    }

    /** An account: its DID, handle and a client logged in as it (an app password). */
    record Account(String did, String handle, XrpcClient client) {}

    /** A new account, handle {@code PREFIX-RANDOM.test}. */
    Account account(String prefix) throws IOException {
        String suffix = HexFormat.of().formatHex(new SecureRandom().generateSeed(4));
        String handle = prefix + "-" + suffix + ".test";
        String password = "pw-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(12));
        JsonNode made = new XrpcClient(new OkHttpClient(), url, null, JSON).procedure("com.atproto.server.createAccount",
                JSON.createObjectNode().put("handle", handle).put("email", handle + "@example.com").put("password", password), false);
        XrpcClient owner = new XrpcClient(new OkHttpClient(), url, new Identity(handle, password), JSON);
        JsonNode app = owner.procedure("com.atproto.server.createAppPassword", JSON.createObjectNode().put("name", "spindle-it"), true);
        return new Account(made.get("did").asText(), handle,
                new XrpcClient(new OkHttpClient(), url, new Identity(handle, app.get("password").asText()), JSON));
    }
}
