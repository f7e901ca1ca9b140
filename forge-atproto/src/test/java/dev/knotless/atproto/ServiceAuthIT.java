package dev.knotless.atproto;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.auth.ServiceAuth;
import dev.knotless.atproto.identity.DidResolver;
import dev.knotless.atproto.xrpc.XrpcClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Service auth against the reference PDS and PLC directory ({@code scripts/pds up}; skipped,
 * saying so, when it has not run): two accounts each ask their PDS for a token for a spindle's
 * {@code sh.tangled.repo.addSecret} ({@code com.atproto.server.getServiceAuth}), as the tangled
 * app does before calling a spindle, and {@link ServiceAuth} checks them with the issuers' DID
 * documents from the PLC directory: each is its own account's, for that audience and method only,
 * and only until it expires.
 */
class ServiceAuthIT {

    private static final String SPINDLE = "did:web:spindle.test";
    private static final String ADD_SECRET = "sh.tangled.repo.addSecret";

    static TestPds pds;
    static TestPds.Account alice;
    static TestPds.Account bob;

    private final OkHttpClient http = new OkHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    @BeforeAll
    static void twoAccounts() throws Exception {
        pds = TestPds.find().orElse(null);
        if (pds == null) {
            return; // each test is skipped, saying why (a skip in @BeforeAll would not be reported)
        }
        alice = TestPds.createAccount(pds.url(), "alice");
        bob = TestPds.createAccount(pds.url(), "bob");
    }

    @BeforeEach
    void requirePds() {
        TestPds.assumeUp();
    }

    private ServiceAuth auth(Clock clock) {
        return new ServiceAuth(new DidResolver(http, HttpUrl.get(pds.plcUrl()), json), clock);
    }

    @Test
    void aTokenMintedByThePdsIsAcceptedAsItsAccountsDid() throws IOException {
        String token = mint(alice, SPINDLE, ADD_SECRET, null).token();
        JsonNode header = part(token, 0);
        JsonNode claims = part(token, 1);
        assertThat(header.path("alg").asText()).isEqualTo("ES256K"); // the PDS's accounts have secp256k1 keys
        assertThat(claims.path("iss").asText()).isEqualTo(alice.did());
        assertThat(claims.path("lxm").asText()).isEqualTo(ADD_SECRET);

        ServiceAuth auth = auth(Clock.systemUTC());
        long t0 = System.nanoTime();
        ServiceAuth.Outcome first = auth.verify("Bearer " + token, SPINDLE, ADD_SECRET);
        long t1 = System.nanoTime();
        ServiceAuth.Outcome cached = auth.verify("Bearer " + token, SPINDLE, ADD_SECRET);
        long t2 = System.nanoTime();
        assertThat(first).isEqualTo(new ServiceAuth.Accepted(alice.did()));
        assertThat(cached).isEqualTo(first);
        ObjectNode shown = (ObjectNode) claims.deepCopy();
        shown.remove("jti");
        System.out.printf("service auth: header %s, claims %s; first check (resolving the DID at the PLC) %d ms, cached %.2f ms%n",
                header, shown,
                (t1 - t0) / 1_000_000, (t2 - t1) / 1e6);
    }

    @Test
    void aTokenForAnotherAudienceIsRefused() throws IOException {
        String token = mint(alice, SPINDLE, ADD_SECRET, null).token();
        assertRefused(auth(Clock.systemUTC()).verify("Bearer " + token, "did:web:other.test", ADD_SECRET),
                "the token is for audience \"did:web:spindle.test\", not \"did:web:other.test\"");
    }

    @Test
    void aTokenForAnotherMethodIsRefused() throws IOException {
        String token = mint(alice, SPINDLE, ADD_SECRET, null).token();
        assertRefused(auth(Clock.systemUTC()).verify("Bearer " + token, SPINDLE, "sh.tangled.repo.removeSecret"),
                "the token is for method \"sh.tangled.repo.addSecret\", not \"sh.tangled.repo.removeSecret\"");
    }

    @Test
    void anExpiredTokenIsRefused() throws IOException {
        // The PDS will not mint a token that is expired already ...
        Minted past = mint(alice, SPINDLE, ADD_SECRET, System.currentTimeMillis() / 1000 - 60);
        assertThat(past.status()).isEqualTo(400);
        assertThat(past.body()).contains("BadExpiration");
        // ... so a token valid for five minutes is checked by fixed clocks around its own exp,
        // never by the wall clock, which a loaded machine moves on between minting and checking.
        long exp = System.currentTimeMillis() / 1000 + 300;
        String token = mint(alice, SPINDLE, ADD_SECRET, exp).token();
        assertThat(part(token, 1).path("exp").asLong()).isEqualTo(exp);
        Instant expiry = Instant.ofEpochSecond(exp);
        assertThat(auth(Clock.fixed(expiry.minusSeconds(1), ZoneOffset.UTC)).verify("Bearer " + token, SPINDLE, ADD_SECRET))
                .isEqualTo(new ServiceAuth.Accepted(alice.did()));
        assertThat(auth(Clock.fixed(expiry.plus(ServiceAuth.LEEWAY).minusSeconds(1), ZoneOffset.UTC))
                .verify("Bearer " + token, SPINDLE, ADD_SECRET))
                .as("within the leeway").isEqualTo(new ServiceAuth.Accepted(alice.did()));
        assertRefused(auth(Clock.fixed(expiry.plus(ServiceAuth.LEEWAY).plusSeconds(1), ZoneOffset.UTC))
                .verify("Bearer " + token, SPINDLE, ADD_SECRET), "the token expired");
    }

    @Test
    void eachAccountsTokenVerifiesAsThatAccount() throws IOException {
        ServiceAuth auth = auth(Clock.systemUTC());
        String aliceToken = mint(alice, SPINDLE, ADD_SECRET, null).token();
        String bobToken = mint(bob, SPINDLE, ADD_SECRET, null).token();
        assertThat(auth.verify("Bearer " + bobToken, SPINDLE, ADD_SECRET)).isEqualTo(new ServiceAuth.Accepted(bob.did()));
        assertThat(auth.verify("Bearer " + aliceToken, SPINDLE, ADD_SECRET)).isEqualTo(new ServiceAuth.Accepted(alice.did()));
        assertThat(bob.did()).isNotEqualTo(alice.did());

        // Bob cannot pass his token off as Alice's: her DID in his claims, his PDS's signature.
        String[] parts = bobToken.split("\\.");
        String claims = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8).replace(bob.did(), alice.did());
        String forged = parts[0] + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(claims.getBytes(StandardCharsets.UTF_8))
                + "." + parts[2];
        assertRefused(auth.verify("Bearer " + forged, SPINDLE, ADD_SECRET),
                "the token's signature does not match the #atproto key of " + alice.did());
    }

    @Test
    void thePdsSessionTokenIsNotServiceAuth() throws IOException {
        String access = new XrpcClient(http, pds.url(), alice.appPassword(), json).session().accessJwt();
        ServiceAuth.Outcome outcome = auth(Clock.systemUTC()).verify("Bearer " + access, SPINDLE, ADD_SECRET);
        assertThat(outcome).isInstanceOf(ServiceAuth.Refused.class);
        System.out.println("the PDS's own access token, " + part(access, 0) + ": " + ((ServiceAuth.Refused) outcome).reason());
    }

    // --- helpers --------------------------------------------------------------------------------

    private static void assertRefused(ServiceAuth.Outcome outcome, String reason) {
        assertThat(outcome).isInstanceOf(ServiceAuth.Refused.class);
        assertThat(((ServiceAuth.Refused) outcome).reason()).contains(reason);
    }

    /** What getServiceAuth answered: a token, or the refusal. */
    record Minted(int status, String body, @Nullable String token) {
        @Override
        public String token() {
            assertThat(status).as("getServiceAuth answered %s", body).isEqualTo(200);
            return java.util.Objects.requireNonNull(token);
        }
    }

    /** {@code com.atproto.server.getServiceAuth} as {@code account}, logged in with its app password. */
    private Minted mint(TestPds.Account account, String aud, String lxm, @Nullable Long exp) throws IOException {
        String access = new XrpcClient(http, pds.url(), account.appPassword(), json).session().accessJwt();
        HttpUrl.Builder url = pds.url().newBuilder().addPathSegments("xrpc/com.atproto.server.getServiceAuth")
                .addQueryParameter("aud", aud).addQueryParameter("lxm", lxm);
        if (exp != null) {
            url.addQueryParameter("exp", Long.toString(exp));
        }
        Request request = new Request.Builder().url(url.build()).header("Authorization", "Bearer " + access).get().build();
        try (Response response = http.newCall(request).execute()) {
            String body = response.body().string();
            String token = response.isSuccessful() ? json.readTree(body).path("token").asText(null) : null;
            return new Minted(response.code(), body, token);
        }
    }

    private JsonNode part(String token, int index) throws IOException {
        return json.readTree(Base64.getUrlDecoder().decode(token.split("\\.")[index]));
    }
}
