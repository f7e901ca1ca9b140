package dev.knotless.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.xrpc.Identity;
import dev.knotless.atproto.xrpc.XrpcClient;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Properties;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Assumptions;

/**
 * The reference PDS and PLC directory that {@code scripts/pds up} starts for the suite, as the
 * ATProto ITs use them: its env file (a test without it is skipped, saying so) and accounts made
 * on it.
 */
final class SuitePds {

    static final ObjectMapper JSON = new ObjectMapper();
    static final Path ENV = Path.of(System.getenv().getOrDefault("KNOTLESS_PDS_ENV", "/var/lib/knotless-pds/pds.env"));

    private SuitePds() {}

    /** An account: its DID and handle, and an app password to log in with. */
    record Account(String did, String handle, Identity identity) {
        XrpcClient client(HttpUrl pds) {
            return new XrpcClient(new OkHttpClient(), pds, identity, JSON);
        }
    }

    /** The env file's values ({@code KNOTLESS_PDS_URL}, {@code KNOTLESS_PLC_URL}, …); skips the test when there is none. */
    static Properties env() throws Exception {
        Assumptions.assumeTrue(Files.isRegularFile(ENV), "skipped: no PDS env file at " + ENV + " (scripts/pds up)");
        Properties env = new Properties();
        try (Reader r = Files.newBufferedReader(ENV, StandardCharsets.UTF_8)) {
            env.load(r);
        }
        return env;
    }

    /** A new account on {@code pds}, handle {@code PREFIX-RANDOM.test} (PREFIX short: handles are bounded). */
    static Account account(HttpUrl pds, String prefix) throws Exception {
        String suffix = HexFormat.of().formatHex(new SecureRandom().generateSeed(4));
        String handle = prefix + "-" + suffix + ".test";
        String password = "pw-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(12));
        JsonNode made = new XrpcClient(new OkHttpClient(), pds, null, JSON).procedure("com.atproto.server.createAccount",
                JSON.createObjectNode().put("handle", handle).put("email", handle + "@example.com").put("password", password), false);
        XrpcClient owner = new XrpcClient(new OkHttpClient(), pds, new Identity(handle, password), JSON);
        JsonNode app = owner.procedure("com.atproto.server.createAppPassword", JSON.createObjectNode().put("name", "knotless-run"), true);
        return new Account(made.get("did").asText(), handle, new Identity(handle, app.get("password").asText()));
    }
}
