package dev.knotless.atproto.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.identity.AtprotoKey;
import dev.knotless.atproto.identity.DidResolver;
import dev.knotless.atproto.repo.TestSigners;
import dev.knotless.testkit.FakeClock;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.function.UnaryOperator;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import okhttp3.OkHttpClient;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ServiceAuth} against tokens signed here (a secp256k1 key with BouncyCastle, a P-256 key
 * with the JDK) and DID documents served by a loopback PLC directory ({@link FakePlc}); time from
 * a clock the test moves.
 */
class ServiceAuthTest {

    private static final String AUD = "did:web:spindle.example.com";
    private static final String METHOD = "sh.tangled.repo.addSecret";
    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");

    private final ObjectMapper json = new ObjectMapper();
    private final FakeClock clock = new FakeClock(T0);
    private final FakePlc plc = newPlc();
    private final DidResolver resolver = new DidResolver(new OkHttpClient(), plc.url(), json);
    private final ServiceAuth auth = new ServiceAuth(resolver, clock);

    private final Signer k1 = Signer.secp256k1();
    private final String did = FakePlc.newPlcDid();

    ServiceAuthTest() {
        plc.register(did, k1.key());
    }

    @AfterEach
    void stop() {
        plc.close();
    }

    // --- accepted -------------------------------------------------------------------------------

    @Test
    void anEs256kTokenIsAcceptedAsItsIssuer() {
        assertThat(auth.verify(bearer(token(k1, did)), AUD, METHOD)).isEqualTo(new ServiceAuth.Accepted(did));
    }

    @Test
    void anEs256TokenSignedWithAP256KeyIsAccepted() throws Exception {
        Signer p256 = Signer.p256();
        String other = FakePlc.newPlcDid();
        plc.register(other, p256.key());
        assertThat(auth.verify(bearer(token(p256, other)), AUD, METHOD)).isEqualTo(new ServiceAuth.Accepted(other));
    }

    @Test
    void anIssuerWithAnAtprotoFragmentIsAcceptedAsTheBareDid() {
        String t = token(k1, did, c -> c.put("iss", did + "#atproto"));
        assertThat(auth.verify(bearer(t), AUD, METHOD)).isEqualTo(new ServiceAuth.Accepted(did));
    }

    @Test
    void aDidWebIssuerIsResolvedFromItsHost() {
        plc.register(plc.webDid(), k1.key());
        String t = token(k1, plc.webDid());
        assertThat(auth.verify(bearer(t), AUD, METHOD)).isEqualTo(new ServiceAuth.Accepted(plc.webDid()));
    }

    @Test
    void aTypOfJwtOrNoneIsAccepted() {
        String noTyp = token(k1, header("ES256K", null), claims(did));
        assertThat(auth.verify(bearer(noTyp), AUD, METHOD)).isEqualTo(new ServiceAuth.Accepted(did));
        assertThat(auth.verify("bearer " + token(k1, did), AUD, METHOD)).isEqualTo(new ServiceAuth.Accepted(did));
    }

    // --- time -----------------------------------------------------------------------------------

    @Test
    void aTokenExpiredBeyondTheLeewayIsRefused() {
        String t = token(k1, did, c -> c.put("iat", now() - 60).put("exp", now() - 6));
        assertRefused(auth.verify(bearer(t), AUD, METHOD), "the token expired", "5 s leeway");
        // Exactly at exp + leeway is over: now < exp + 5 s is what is allowed.
        String edge = token(k1, did, c -> c.put("iat", now() - 60).put("exp", now() - 5));
        assertRefused(auth.verify(bearer(edge), AUD, METHOD), "the token expired");
    }

    @Test
    void aTokenExpiredWithinTheLeewayIsAccepted() {
        String t = token(k1, did, c -> c.put("iat", now() - 60).put("exp", now() - 4));
        assertThat(auth.verify(bearer(t), AUD, METHOD)).isEqualTo(new ServiceAuth.Accepted(did));
    }

    @Test
    void aTokenThatExpiresIsRefusedOnceTheClockPassesIt() {
        String t = token(k1, did); // exp = now + 60
        assertThat(auth.verify(bearer(t), AUD, METHOD)).isInstanceOf(ServiceAuth.Accepted.class);
        clock.advance(Duration.ofSeconds(65));
        assertRefused(auth.verify(bearer(t), AUD, METHOD), "the token expired");
    }

    @Test
    void aTokenWithoutExpOrWithATextExpIsRefused() {
        assertRefused(auth.verify(bearer(token(k1, did, c -> { c.remove("exp"); return c; })), AUD, METHOD), "the token has no exp");
        assertRefused(auth.verify(bearer(token(k1, did, c -> c.put("exp", String.valueOf(now() + 60)))), AUD, METHOD),
                "the token's exp is not a number");
    }

    @Test
    void aTokenIssuedInTheFutureIsRefused() {
        String t = token(k1, did, c -> c.put("iat", now() + 6).put("exp", now() + 60));
        assertRefused(auth.verify(bearer(t), AUD, METHOD), "issued in the future");
        String skewed = token(k1, did, c -> c.put("iat", now() + 4).put("exp", now() + 60));
        assertThat(auth.verify(bearer(skewed), AUD, METHOD)).isInstanceOf(ServiceAuth.Accepted.class);
    }

    @Test
    void aTokenValidForOverAnHourIsRefused() {
        String t = token(k1, did, c -> c.put("iat", now()).put("exp", now() + 3601));
        assertRefused(auth.verify(bearer(t), AUD, METHOD), "valid for 3601 s (exp - iat)", "over the 3600 s");
        String noIat = token(k1, did, c -> { c.remove("iat"); return c.put("exp", now() + 7200); });
        assertRefused(auth.verify(bearer(noIat), AUD, METHOD), "valid for 7200 s from now");
        String hour = token(k1, did, c -> c.put("iat", now()).put("exp", now() + 3600));
        assertThat(auth.verify(bearer(hour), AUD, METHOD)).isInstanceOf(ServiceAuth.Accepted.class);
    }

    // --- audience and method --------------------------------------------------------------------

    @Test
    void aTokenForAnotherAudienceIsRefused() {
        String t = token(k1, did, c -> c.put("aud", "did:web:other.example.com"));
        assertRefused(auth.verify(bearer(t), AUD, METHOD),
                "the token is for audience \"did:web:other.example.com\", not \"did:web:spindle.example.com\"");
        // A service reference is not this DID either: the audience is compared exactly.
        String ref = token(k1, did, c -> c.put("aud", AUD + "#tangled_spindle"));
        assertRefused(auth.verify(bearer(ref), AUD, METHOD), "for audience");
    }

    @Test
    void aTokenForAnotherMethodIsRefused() {
        String t = token(k1, did, c -> c.put("lxm", "sh.tangled.repo.listSecrets"));
        assertRefused(auth.verify(bearer(t), AUD, METHOD),
                "the token is for method \"sh.tangled.repo.listSecrets\", not \"sh.tangled.repo.addSecret\"");
    }

    @Test
    void aTokenWithoutLxmIsRefused() {
        String t = token(k1, did, c -> { c.remove("lxm"); return c; });
        assertRefused(auth.verify(bearer(t), AUD, METHOD), "the token has no lxm");
    }

    // --- algorithm and type ---------------------------------------------------------------------

    @Test
    void algNoneIsRefused() {
        String unsigned = b64(header("none", "JWT").toString()) + "." + b64(claims(did).toString()) + ".";
        assertRefused(auth.verify(bearer(unsigned), AUD, METHOD), "the token's alg is \"none\"", "only ES256K and ES256");
        assertThat(plc.lookups(did)).isZero();
    }

    @Test
    void hs256SignedWithThePublicKeyIsRefused() throws Exception {
        // The classic confusion: the public key, which anyone can read, used as an HMAC secret.
        String input = b64(header("HS256", "JWT").toString()) + "." + b64(claims(did).toString());
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(k1.key().compressed(), "HmacSHA256"));
        String t = input + "." + b64(mac.doFinal(input.getBytes(StandardCharsets.US_ASCII)));
        assertRefused(auth.verify(bearer(t), AUD, METHOD), "the token's alg is \"HS256\"");
    }

    @Test
    void aKeyOfAnotherCurveThanTheAlgIsRefused() throws Exception {
        Signer p256 = Signer.p256();
        String other = FakePlc.newPlcDid();
        plc.register(other, p256.key());
        String t = token(p256, header("ES256K", "JWT"), claims(other));
        assertRefused(auth.verify(bearer(t), AUD, METHOD),
                "the token is signed with ES256K but the #atproto key of " + other + " is P-256 (ES256)");
    }

    @Test
    void sessionTokenTypesAreRefused() {
        for (String typ : new String[] {"at+jwt", "refresh+jwt"}) {
            String t = token(k1, header("ES256K", typ), claims(did));
            assertRefused(auth.verify(bearer(t), AUD, METHOD), "the token's typ is \"" + typ + "\": a PDS session token");
        }
        assertRefused(auth.verify(bearer(token(k1, header("ES256K", "dpop+jwt"), claims(did))), AUD, METHOD), "DPoP");
        assertRefused(auth.verify(bearer(token(k1, header("ES256K", "JOSE"), claims(did))), AUD, METHOD), "(JWT or none expected)");
    }

    @Test
    void aCritHeaderIsRefused() {
        ObjectNode h = header("ES256K", "JWT");
        h.putArray("crit").add("b64");
        assertRefused(auth.verify(bearer(token(k1, h, claims(did))), AUD, METHOD), "crit");
    }

    // --- signature ------------------------------------------------------------------------------

    @Test
    void aSignatureWithOneByteFlippedIsRefused() {
        String t = token(k1, did);
        int dot = t.lastIndexOf('.');
        byte[] sig = Base64.getUrlDecoder().decode(t.substring(dot + 1));
        sig[10] ^= 0x01;
        assertRefused(auth.verify(bearer(t.substring(0, dot + 1) + b64(sig)), AUD, METHOD),
                "the token's signature does not match the #atproto key of " + did);
    }

    @Test
    void aClaimChangedAfterSigningIsRefused() {
        String t = token(k1, did);
        String[] parts = t.split("\\.");
        String forged = b64(claims(did).put("jti", "another").toString());
        assertRefused(auth.verify(bearer(parts[0] + "." + forged + "." + parts[2]), AUD, METHOD), "signature does not match");
    }

    @Test
    void aHighSSignatureIsRefusedThoughEcdsaWouldTakeIt() {
        String t = token(k1, did);
        int dot = t.lastIndexOf('.');
        byte[] sig = Base64.getUrlDecoder().decode(t.substring(dot + 1));
        BigInteger n = CustomNamedCurves.getByName("secp256k1").getN();
        BigInteger s = new BigInteger(1, Arrays.copyOfRange(sig, 32, 64));
        byte[] high = Arrays.copyOf(sig, 64);
        System.arraycopy(fixed32(n.subtract(s)), 0, high, 32, 32);
        assertRefused(auth.verify(bearer(t.substring(0, dot + 1) + b64(high)), AUD, METHOD), "signature does not match", "low-S");
    }

    @Test
    void aSignatureOfAnotherLengthIsRefusedBeforeAnyLookup() {
        String t = token(k1, did);
        int dot = t.lastIndexOf('.');
        byte[] der = new byte[71]; // the length of a DER signature, as a careless signer would send
        assertRefused(auth.verify(bearer(t.substring(0, dot + 1) + b64(der)), AUD, METHOD), "signature is 71 bytes (expected 64");
        assertThat(plc.lookups(did)).isZero();
    }

    @Test
    void anIssuerThatDoesNotResolveIsRefused() {
        String unknown = FakePlc.newPlcDid();
        assertRefused(auth.verify(bearer(token(k1, unknown)), AUD, METHOD), "cannot resolve " + unknown + ": ", "HTTP 404");
    }

    @Test
    void anIssuerThatIsNotADidIsRefusedWithoutALookup() {
        assertRefused(auth.verify(bearer(token(k1, did, c -> c.put("iss", "alice.test"))), AUD, METHOD),
                "the token's iss \"alice.test\" is not a did:plc or did:web DID");
        assertRefused(auth.verify(bearer(token(k1, did, c -> c.put("iss", "did:key:" + k1.key().multibase()))), AUD, METHOD),
                "is not a did:plc or did:web DID");
        assertRefused(auth.verify(bearer(token(k1, did, c -> c.put("iss", did + "#a b"))), AUD, METHOD),
                "has a fragment that is not a service id");
        assertThat(plc.lookups(did)).isZero();
    }

    // --- shape ----------------------------------------------------------------------------------

    @Test
    void malformedHeadersAreRefused() {
        String good = token(k1, did);
        String[] parts = good.split("\\.");
        assertRefused(auth.verify(null, AUD, METHOD), "no Authorization header");
        assertRefused(auth.verify("", AUD, METHOD), "no Authorization header");
        assertRefused(auth.verify(good, AUD, METHOD), "not a Bearer token");
        assertRefused(auth.verify("Basic " + good, AUD, METHOD), "not a Bearer token");
        assertRefused(auth.verify("Bearer", AUD, METHOD), "not a Bearer token");
        assertRefused(auth.verify(bearer(parts[0] + "." + parts[1]), AUD, METHOD), "the token has 2 parts (expected three");
        assertRefused(auth.verify(bearer(good + ".x"), AUD, METHOD), "the token has 4 parts");
        assertRefused(auth.verify(bearer("!!!." + parts[1] + "." + parts[2]), AUD, METHOD), "header is not base64url");
        assertRefused(auth.verify(bearer(parts[0] + ".%%%%." + parts[2]), AUD, METHOD), "payload is not base64url");
        assertRefused(auth.verify(bearer(parts[0] + "." + parts[1] + "." + parts[2] + "=="), AUD, METHOD),
                "signature is not base64url without padding");
        assertRefused(auth.verify(bearer(b64("not json") + "." + parts[1] + "." + parts[2]), AUD, METHOD),
                "the token's header is not a JSON object");
        assertRefused(auth.verify(bearer(b64("[1,2]") + "." + parts[1] + "." + parts[2]), AUD, METHOD),
                "the token's header is not a JSON object");
        assertRefused(auth.verify(bearer(parts[0] + "." + b64("{} {}") + "." + parts[2]), AUD, METHOD),
                "the token's payload is not a JSON object");
    }

    @Test
    void aTokenOverEightKibIsRefused() {
        String big = token(k1, did, c -> c.put("pad", "x".repeat(9 << 10)));
        assertThat(big.length()).isGreaterThan(9 << 10);
        assertRefused(auth.verify(bearer(big), AUD, METHOD), "over the 8192 a service-auth token may be");
        assertThat(plc.lookups(did)).isZero();
    }

    @Test
    void aClaimGivenTwiceIsRefused() {
        // Two parsers could read {"aud": A, "aud": B} as two different tokens: neither is taken.
        String payload = claims(did).toString().replaceFirst("\\{", "{\"aud\":\"did:web:evil.example\",");
        String input = b64(header("ES256K", "JWT").toString()) + "." + b64(payload);
        String t = input + "." + b64(k1.sign(input.getBytes(StandardCharsets.US_ASCII)));
        assertRefused(auth.verify(bearer(t), AUD, METHOD), "the token's payload is not a JSON object", "aud");
    }

    // --- keys -----------------------------------------------------------------------------------

    @Test
    void keysAreCachedForFiveMinutes() {
        for (int i = 0; i < 3; i++) {
            assertThat(auth.verify(bearer(token(k1, did)), AUD, METHOD)).isInstanceOf(ServiceAuth.Accepted.class);
        }
        assertThat(plc.lookups(did)).isEqualTo(1);
        clock.advance(Duration.ofMinutes(5));
        assertThat(auth.verify(bearer(token(k1, did)), AUD, METHOD)).isInstanceOf(ServiceAuth.Accepted.class);
        assertThat(plc.lookups(did)).isEqualTo(2);
    }

    @Test
    void aRotatedKeyIsResolvedAfreshOnceTheCachedOneIsNotBrandNew() {
        assertThat(auth.verify(bearer(token(k1, did)), AUD, METHOD)).isInstanceOf(ServiceAuth.Accepted.class);
        Signer rotated = Signer.secp256k1();
        plc.register(did, rotated.key());

        // Within REFETCH_AFTER of the lookup the cached key stands: refused, and no lookup.
        clock.advance(ServiceAuth.REFETCH_AFTER.minusSeconds(1));
        assertRefused(auth.verify(bearer(token(rotated, did)), AUD, METHOD), "signature does not match");
        assertThat(plc.lookups(did)).isEqualTo(1);

        clock.advance(Duration.ofSeconds(1));
        assertThat(auth.verify(bearer(token(rotated, did)), AUD, METHOD)).isEqualTo(new ServiceAuth.Accepted(did));
        assertThat(plc.lookups(did)).isEqualTo(2);
        // The new key is what is cached now; the old one no longer speaks for the DID.
        assertRefused(auth.verify(bearer(token(k1, did)), AUD, METHOD), "signature does not match");
        assertThat(plc.lookups(did)).isEqualTo(2);
    }

    @Test
    void forgedTokensCostTheDirectoryOneLookupPerInterval() {
        Signer forger = Signer.secp256k1();
        for (int i = 0; i < 40; i++) {
            assertRefused(auth.verify(bearer(token(forger, did)), AUD, METHOD), "signature does not match");
            clock.advance(Duration.ofSeconds(1));
        }
        // One lookup, then one refetch when the key had been REFETCH_AFTER (30 s) in hand: not one per token.
        assertThat(plc.lookups(did)).isEqualTo(2);
    }

    @Test
    void withoutACacheEveryTokenIsResolved() {
        ServiceAuth uncached = new ServiceAuth(resolver, clock, Duration.ZERO, 0);
        for (int i = 0; i < 3; i++) {
            assertThat(uncached.verify(bearer(token(k1, did)), AUD, METHOD)).isInstanceOf(ServiceAuth.Accepted.class);
        }
        assertThat(plc.lookups(did)).isEqualTo(3);
    }

    @Test
    void theKeyCacheIsBounded() throws Exception {
        SigningKeys keys = new SigningKeys(resolver, clock, Duration.ofMinutes(5), 2);
        String[] dids = {FakePlc.newPlcDid(), FakePlc.newPlcDid(), FakePlc.newPlcDid()};
        for (String d : dids) {
            plc.register(d, k1.key());
            keys.get(d);
        }
        assertThat(keys.size()).isEqualTo(2);
        keys.get(dids[2]);
        keys.get(dids[0]); // the least recently used, out first
        assertThat(plc.lookups(dids[0])).isEqualTo(2);
        assertThat(plc.lookups(dids[2])).isEqualTo(1);
    }

    // --- helpers --------------------------------------------------------------------------------

    /** A refusal naming each of {@code fragments}, on one printable line, without the token. */
    private static void assertRefused(ServiceAuth.Outcome outcome, String... fragments) {
        assertThat(outcome).isInstanceOf(ServiceAuth.Refused.class);
        String reason = ((ServiceAuth.Refused) outcome).reason();
        assertThat(reason).contains(fragments).doesNotContain("\n", "\r").matches("[\\x20-\\x7e…]+");
        assertThat(reason.length()).isLessThan(600);
        // No base64 JSON, so no part of a token; a key's multibase may hold "eyJ" inside a word.
        assertThat(reason).doesNotContainPattern("(?<![A-Za-z0-9_-])eyJ");
    }

    private long now() {
        return clock.instant().getEpochSecond();
    }

    private static String bearer(String token) {
        return "Bearer " + token;
    }

    private ObjectNode header(String alg, @Nullable String typ) {
        ObjectNode h = json.createObjectNode();
        if (typ != null) {
            h.put("typ", typ);
        }
        return h.put("alg", alg);
    }

    /** The claims a PDS writes: iat, iss, aud, exp a minute on, lxm, jti. */
    private ObjectNode claims(String iss) {
        return json.createObjectNode().put("iat", now()).put("iss", iss).put("aud", AUD).put("exp", now() + 60)
                .put("lxm", METHOD).put("jti", "0123456789abcdef0123456789abcdef");
    }

    private String token(Signer signer, String iss) {
        return token(signer, header(signer.alg(), "JWT"), claims(iss));
    }

    private String token(Signer signer, String iss, UnaryOperator<ObjectNode> change) {
        return token(signer, header(signer.alg(), "JWT"), change.apply(claims(iss)));
    }

    private static String token(Signer signer, ObjectNode header, ObjectNode claims) {
        String input = b64(header.toString()) + "." + b64(claims.toString());
        return input + "." + b64(signer.sign(input.getBytes(StandardCharsets.US_ASCII)));
    }

    private static String b64(String text) {
        return b64(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String b64(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static byte[] fixed32(BigInteger v) {
        byte[] b = v.toByteArray();
        byte[] out = new byte[32];
        int n = Math.min(32, b.length);
        System.arraycopy(b, b.length - n, out, 32 - n, n);
        return out;
    }

    private static FakePlc newPlc() {
        try {
            return new FakePlc();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A key that signs as ATProto does: 64 bytes r || s, low S, over SHA-256. */
    private interface Signer {
        AtprotoKey key();

        byte[] sign(byte[] message);

        default String alg() {
            return key().curve() == AtprotoKey.Curve.SECP256K1 ? "ES256K" : "ES256";
        }

        static Signer secp256k1() {
            TestSigners.K1 k = TestSigners.secp256k1();
            return new Signer() {
                @Override
                public AtprotoKey key() {
                    return k.key();
                }

                @Override
                public byte[] sign(byte[] message) {
                    return k.sign(message);
                }
            };
        }

        static Signer p256() throws Exception {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            KeyPair pair = g.generateKeyPair();
            ECPublicKey pub = (ECPublicKey) pair.getPublic();
            byte[] compressed = new byte[33];
            compressed[0] = (byte) (pub.getW().getAffineY().testBit(0) ? 3 : 2);
            System.arraycopy(fixed32(pub.getW().getAffineX()), 0, compressed, 1, 32);
            AtprotoKey key = new AtprotoKey(AtprotoKey.Curve.P256, compressed);
            BigInteger n = CustomNamedCurves.getByName("secp256r1").getN();
            return new Signer() {
                @Override
                public AtprotoKey key() {
                    return key;
                }

                @Override
                public byte[] sign(byte[] message) {
                    try {
                        Signature s = Signature.getInstance("SHA256withECDSAinP1363Format");
                        s.initSign(pair.getPrivate());
                        s.update(message);
                        byte[] sig = s.sign();
                        // The JDK leaves S as it falls; ATProto takes only the lower half.
                        BigInteger sv = new BigInteger(1, Arrays.copyOfRange(sig, 32, 64));
                        if (sv.compareTo(n.shiftRight(1)) > 0) {
                            System.arraycopy(fixed32(n.subtract(sv)), 0, sig, 32, 32);
                        }
                        return sig;
                    } catch (java.security.GeneralSecurityException e) {
                        throw new IllegalStateException(e);
                    }
                }
            };
        }
    }
}
