package dev.knotless.atproto.auth;

import static dev.knotless.atproto.auth.Refusal.quoted;
import static dev.knotless.atproto.auth.Refusal.shown;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.identity.AtprotoKey;
import dev.knotless.atproto.identity.DidResolver;
import dev.knotless.atproto.identity.IdentityException;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Checks an ATProto service-auth token: the short-lived JWT a PDS signs with an account's
 * {@code #atproto} key when the account asks it to ({@code com.atproto.server.getServiceAuth}),
 * sent as {@code Authorization: Bearer <jwt>} to another service's XRPC endpoint, such as a
 * tangled spindle's {@code sh.tangled.repo.addSecret}. The answer is who is calling (the issuer's
 * DID) or why not, in one printable line that never repeats the token.
 *
 * <p>The checks, in order, and why each is there:
 * <ol>
 * <li><b>Shape.</b> {@code Bearer <jwt>}, at most {@value #MAX_TOKEN_BYTES} bytes, three parts of
 *     base64url without padding (and in their one canonical spelling), the first two JSON objects
 *     read with tight bounds (nesting, lengths, no name given twice, nothing after the object).
 *     The token comes from anyone on the network before anything is known of them: its size and
 *     the parser's work are bounded first. A duplicated claim is refused because two parsers could
 *     read it as two different tokens.
 * <li><b>{@code alg}</b> is {@code ES256K} (secp256k1) or {@code ES256} (P-256), the two curves of
 *     ATProto keys. Anything else is refused, {@code none} and the HMAC algorithms first of all:
 *     those are the classic JWT forgeries (no signature, or one "signed" with a public key as the
 *     HMAC secret). {@code typ}, when present, must be {@code JWT}: {@code at+jwt} and
 *     {@code refresh+jwt} are the PDS's own session tokens and {@code dpop+jwt} an OAuth proof,
 *     none of them a statement by the account that it calls this service. A {@code crit} header
 *     is refused: it names extensions that must be understood, and none are. Keys named in the
 *     header ({@code jwk}, {@code kid}, …) are ignored: a token naming its own key proves nothing.
 * <li><b>{@code aud}</b> equals this service's DID exactly: a token minted for another service
 *     must not be replayable here.
 * <li><b>Time.</b> {@code exp} is required and must not be passed (with {@link #LEEWAY} for clock
 *     skew); {@code iat} and {@code nbf}, when present, not in the future beyond the same leeway;
 *     and the token may live at most {@link #MAX_LIFETIME} ({@code exp - iat}, or {@code exp -
 *     now} without {@code iat}). Service auth is meant to be used at once: a long-lived bearer
 *     token is a stolen credential waiting to happen, and the reference PDS mints none longer
 *     than an hour.
 * <li><b>{@code lxm}</b> is required and must be the method called. Without it a token for one
 *     harmless call would do for any call, such as adding a secret. (tangled's own spindle checks
 *     the audience but not the method; this does.)
 * <li><b>{@code iss}</b> is a {@code did:plc} or {@code did:web} DID, a fragment such as
 *     {@code #atproto} allowed and dropped. Its DID document is resolved ({@link DidResolver}) and
 *     its {@code #atproto} key must be of the curve {@code alg} names (a key is used with one
 *     algorithm only) and must verify the 64-byte low-S {@code r || s} signature over the ASCII
 *     {@code header.payload} ({@link AtprotoKey#verifies}). That signature is the whole proof: the
 *     claims above are the caller's own words until it is checked, which is why the cheap checks
 *     come first and the network last.
 * </ol>
 *
 * <p>Keys are cached ({@link #KEY_TTL}, at most {@link #MAX_KEYS} issuers) on the injected clock.
 * When a signature does not match a cached key, the DID is resolved once more, bypassing the
 * cache, in case the account rotated its key; but not when the key in hand was resolved within
 * {@link #REFETCH_AFTER}, so that a stream of forged tokens naming a real DID costs its directory
 * one lookup per that interval, not one per token.
 *
 * <p>Thread-safe.
 */
public final class ServiceAuth {

    /** The most a token may be; one from a PDS is about 500 bytes. */
    public static final int MAX_TOKEN_BYTES = 8 << 10;
    /** Allowed clock skew between the issuer's PDS and this service. */
    public static final Duration LEEWAY = Duration.ofSeconds(5);
    /** The longest a service-auth token may be valid for. */
    public static final Duration MAX_LIFETIME = Duration.ofHours(1);
    /** How long a resolved key is used before it is resolved again. */
    public static final Duration KEY_TTL = Duration.ofMinutes(5);
    /** How many issuers' keys are kept. */
    public static final int MAX_KEYS = 1_000;
    /** A key resolved less than this long ago is not resolved again when a signature does not match it. */
    public static final Duration REFETCH_AFTER = Duration.ofSeconds(30);

    /** What {@link #verify} decided. */
    public sealed interface Outcome permits Accepted, Refused {}

    /** The token is good: {@code did} (without a fragment) is calling. */
    public record Accepted(String did) implements Outcome {
        public Accepted {
            Objects.requireNonNull(did, "did");
        }
    }

    /** The token is not good, for {@code reason} (one printable line, never the token). */
    public record Refused(String reason) implements Outcome {
        public Refused {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** A fragment of an issuer, as ATProto writes service ids ({@code #atproto}, {@code #atproto_labeler}). */
    private static final Pattern FRAGMENT = Pattern.compile("[A-Za-z0-9._~-]{1,64}");

    private final SigningKeys keys;
    private final Clock clock;

    public ServiceAuth(DidResolver resolver, Clock clock) {
        this(resolver, clock, KEY_TTL, MAX_KEYS);
    }

    /**
     * @param keyTtl how long a resolved key is used; zero to resolve on every token
     * @param maxKeys how many issuers' keys are kept; zero for none
     */
    public ServiceAuth(DidResolver resolver, Clock clock, Duration keyTtl, int maxKeys) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.keys = new SigningKeys(resolver, clock, keyTtl, maxKeys);
    }

    /**
     * Checks a request's token.
     *
     * @param authorization the {@code Authorization} header as received, or null when there was none
     * @param audience this service's DID, such as {@code did:web:spindle.example.com}
     * @param method the NSID of the XRPC method called, such as {@code sh.tangled.repo.addSecret}
     */
    public Outcome verify(@Nullable String authorization, String audience, String method) {
        Objects.requireNonNull(audience, "audience");
        Objects.requireNonNull(method, "method");
        try {
            return check(authorization, audience, method);
        } catch (Refusal r) {
            return new Refused(r.getMessage());
        }
    }

    private Outcome check(@Nullable String authorization, String audience, String method) throws Refusal {
        BearerToken token = BearerToken.read(authorization);
        JsonNode header = token.header();
        JsonNode payload = token.payload();

        AtprotoKey.Curve curve = curveOf(header);
        checkType(header);
        if (header.has("crit")) {
            throw new Refusal("the token's header has crit (critical extensions, of which none are understood here)");
        }

        String aud = text(payload, "aud");
        if (!aud.equals(audience)) {
            throw new Refusal("the token is for audience " + quoted(aud) + ", not " + quoted(audience));
        }
        checkTime(payload);
        if (!payload.has("lxm")) {
            throw new Refusal("the token has no lxm (it would do for any method): " + quoted(method) + " expected");
        }
        String lxm = text(payload, "lxm");
        if (!lxm.equals(method)) {
            throw new Refusal("the token is for method " + quoted(lxm) + ", not " + quoted(method));
        }
        String did = issuer(text(payload, "iss"));
        byte[] signature = token.signature();
        if (signature.length != 64) {
            throw new Refusal("the token's signature is " + signature.length + " bytes (expected 64: r || s)");
        }
        return signedBy(did, curve, token.signed(), signature);
    }

    private static AtprotoKey.Curve curveOf(JsonNode header) throws Refusal {
        JsonNode alg = header.get("alg");
        if (alg == null || !alg.isTextual()) {
            throw new Refusal("the token's header has no alg (ES256K or ES256 expected)");
        }
        return switch (alg.asText()) {
            case "ES256K" -> AtprotoKey.Curve.SECP256K1;
            case "ES256" -> AtprotoKey.Curve.P256;
            default -> throw new Refusal("the token's alg is " + quoted(alg.asText()) + ": only ES256K and ES256 are accepted");
        };
    }

    private static void checkType(JsonNode header) throws Refusal {
        JsonNode typ = header.get("typ");
        if (typ == null) {
            return;
        }
        if (!typ.isTextual()) {
            throw new Refusal("the token's typ is not a string");
        }
        String t = typ.asText();
        switch (t.toLowerCase(java.util.Locale.ROOT)) {
            case "jwt" -> {}
            case "at+jwt", "refresh+jwt" -> throw new Refusal("the token's typ is " + quoted(t) + ": a PDS session token, not service auth");
            case "dpop+jwt" -> throw new Refusal("the token's typ is " + quoted(t) + ": an OAuth DPoP proof, not service auth");
            default -> throw new Refusal("the token's typ is " + quoted(t) + " (JWT or none expected)");
        }
    }

    private void checkTime(JsonNode payload) throws Refusal {
        double now = clock.millis() / 1000.0;
        long shownNow = clock.millis() / 1000;
        double leeway = LEEWAY.toSeconds();
        double exp = seconds(payload, "exp");
        if (Double.isNaN(exp)) {
            throw new Refusal("the token has no exp (service auth must expire)");
        }
        if (now >= exp + leeway) {
            throw new Refusal("the token expired: exp " + shown(payload.get("exp").asText()) + ", now " + shownNow
                    + " (" + LEEWAY.toSeconds() + " s leeway)");
        }
        double iat = seconds(payload, "iat");
        if (!Double.isNaN(iat) && iat > now + leeway) {
            throw new Refusal("the token is issued in the future: iat " + shown(payload.get("iat").asText()) + ", now " + shownNow);
        }
        double nbf = seconds(payload, "nbf");
        if (!Double.isNaN(nbf) && nbf > now + leeway) {
            throw new Refusal("the token is not valid yet: nbf " + shown(payload.get("nbf").asText()) + ", now " + shownNow);
        }
        double lifetime = exp - (Double.isNaN(iat) ? now : iat);
        if (lifetime > MAX_LIFETIME.toSeconds()) {
            throw new Refusal("the token is valid for " + (long) Math.min(lifetime, Long.MAX_VALUE) + " s"
                    + (Double.isNaN(iat) ? " from now" : " (exp - iat)") + ", over the " + MAX_LIFETIME.toSeconds()
                    + " s service auth may last");
        }
    }

    /** A NumericDate claim in seconds, NaN when absent; refused when present and not a number. */
    private static double seconds(JsonNode payload, String claim) throws Refusal {
        JsonNode node = payload.get(claim);
        if (node == null) {
            return Double.NaN;
        }
        if (!node.isNumber()) {
            throw new Refusal("the token's " + claim + " is not a number");
        }
        return node.asDouble();
    }

    private static String text(JsonNode payload, String claim) throws Refusal {
        JsonNode node = payload.get(claim);
        if (node == null) {
            throw new Refusal("the token has no " + claim);
        }
        if (!node.isTextual()) {
            throw new Refusal("the token's " + claim + " is not a string");
        }
        return node.asText();
    }

    /** The DID of {@code iss}, its fragment (a service id such as {@code #atproto}) dropped. */
    private static String issuer(String iss) throws Refusal {
        int hash = iss.indexOf('#');
        String did = hash < 0 ? iss : iss.substring(0, hash);
        if (hash >= 0 && !FRAGMENT.matcher(iss.substring(hash + 1)).matches()) {
            throw new Refusal("the token's iss " + quoted(iss) + " has a fragment that is not a service id");
        }
        if (!DidResolver.supported(did)) {
            throw new Refusal("the token's iss " + quoted(iss) + " is not a did:plc or did:web DID");
        }
        return did;
    }

    private Outcome signedBy(String did, AtprotoKey.Curve curve, byte[] signed, byte[] signature) throws Refusal {
        SigningKeys.Resolved key = resolve(did, false);
        if (matches(key.key(), curve, signed, signature)) {
            return new Accepted(did);
        }
        // The account may have rotated its key since it was cached: look once more, unless the key
        // is itself that fresh (a forged token must not make every request a directory lookup).
        if (!clock.instant().isBefore(key.at().plus(REFETCH_AFTER))) {
            try {
                key = resolve(did, true);
            } catch (Refusal r) {
                throw new Refusal(mismatch(did, key.key(), curve) + "; resolving it afresh: " + r.getMessage());
            }
            if (matches(key.key(), curve, signed, signature)) {
                return new Accepted(did);
            }
        }
        throw new Refusal(mismatch(did, key.key(), curve));
    }

    private SigningKeys.Resolved resolve(String did, boolean fresh) throws Refusal {
        try {
            return fresh ? keys.resolve(did) : keys.get(did);
        } catch (IdentityException e) {
            throw new Refusal("cannot resolve " + did + ": " + shown(Objects.toString(e.getMessage(), "?"), 300));
        } catch (RuntimeException e) {
            // A did:web host name the HTTP client will not take, for one: the token's fault, not ours.
            throw new Refusal("cannot resolve " + did + ": " + shown(Objects.toString(e.getMessage(), e.getClass().getSimpleName()), 300));
        }
    }

    private static boolean matches(AtprotoKey key, AtprotoKey.Curve curve, byte[] signed, byte[] signature) {
        return key.curve() == curve && key.verifies(signed, signature);
    }

    private static String mismatch(String did, AtprotoKey key, AtprotoKey.Curve curve) {
        if (key.curve() != curve) {
            return "the token is signed with " + alg(curve) + " but the #atproto key of " + did + " is "
                    + key.curve().label() + " (" + alg(key.curve()) + ")";
        }
        return "the token's signature does not match the #atproto key of " + did + " (" + key.didKey()
                + "; a low-S signature over header.payload expected)";
    }

    private static String alg(AtprotoKey.Curve curve) {
        return switch (curve) {
            case SECP256K1 -> "ES256K";
            case P256 -> "ES256";
        };
    }
}
