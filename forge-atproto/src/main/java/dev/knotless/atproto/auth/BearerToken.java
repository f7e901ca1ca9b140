package dev.knotless.atproto.auth;

import static dev.knotless.atproto.auth.Refusal.shown;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A service-auth token in its shape, the first of {@link ServiceAuth}'s checks: {@code Bearer <jwt>},
 * at most {@value ServiceAuth#MAX_TOKEN_BYTES} bytes, three parts of base64url without padding in
 * their one canonical spelling, the first two JSON objects read with tight bounds (nesting, lengths,
 * no name given twice, nothing after the object). Nothing in it is checked beyond its shape: the
 * claims are the caller's own words until the signature is.
 *
 * @param headerPart the header as sent (base64url)
 * @param payloadPart the payload as sent (base64url)
 * @param header the header's JSON object
 * @param payload the payload's JSON object
 * @param signature the signature's bytes, of any length
 */
record BearerToken(String headerPart, String payloadPart, JsonNode header, JsonNode payload, byte[] signature) {

    /** The token's size bounds the work already; these bound what the parser is asked to build. */
    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(8).maxStringLength(ServiceAuth.MAX_TOKEN_BYTES).maxNumberLength(40).build())
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /**
     * Reads the token of an {@code Authorization} header.
     *
     * @param authorization the header as received, or null when there was none
     * @throws Refusal when the header or the token is not of that shape
     */
    static BearerToken read(@Nullable String authorization) throws Refusal {
        String[] parts = parts(token(authorization));
        byte[] headerBytes = base64url(parts[0], "header");
        byte[] payloadBytes = base64url(parts[1], "payload");
        byte[] signature = base64url(parts[2], "signature");
        JsonNode header = object(headerBytes, "header");
        JsonNode payload = object(payloadBytes, "payload");
        return new BearerToken(parts[0], parts[1], header, payload, signature);
    }

    /** What the signature is over: the ASCII {@code header.payload}, as sent. */
    byte[] signed() {
        return (headerPart + "." + payloadPart).getBytes(StandardCharsets.US_ASCII);
    }

    private static String token(@Nullable String authorization) throws Refusal {
        if (authorization == null || authorization.isBlank()) {
            throw new Refusal("no Authorization header (a Bearer service-auth token is required)");
        }
        String value = authorization.strip();
        int space = value.indexOf(' ');
        if (space < 0 || !value.substring(0, space).equalsIgnoreCase("Bearer")) {
            throw new Refusal("the Authorization header is not a Bearer token");
        }
        String token = value.substring(space + 1).stripLeading();
        if (token.length() > ServiceAuth.MAX_TOKEN_BYTES) {
            throw new Refusal("the token is " + token.length() + " bytes, over the " + ServiceAuth.MAX_TOKEN_BYTES
                    + " a service-auth token may be");
        }
        return token;
    }

    private static String[] parts(String token) throws Refusal {
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3) {
            throw new Refusal("the token has " + parts.length + " part" + (parts.length == 1 ? "" : "s")
                    + " (expected three: header.payload.signature)");
        }
        return parts;
    }

    /** Decodes base64url without padding, in its canonical spelling only (so one token has one form). */
    private static byte[] base64url(String text, String part) throws Refusal {
        try {
            byte[] bytes = Base64.getUrlDecoder().decode(text);
            if (Base64.getUrlEncoder().withoutPadding().encodeToString(bytes).equals(text)) {
                return bytes;
            }
        } catch (IllegalArgumentException e) {
            // the same refusal as a non-canonical spelling, below
        }
        throw new Refusal("the token's " + part + " is not base64url without padding");
    }

    private static JsonNode object(byte[] bytes, String part) throws Refusal {
        JsonNode node;
        try {
            node = JSON.readTree(bytes);
        } catch (JsonProcessingException e) {
            throw new Refusal("the token's " + part + " is not a JSON object: " + shown(Objects.toString(e.getOriginalMessage(), "")));
        } catch (IOException e) {
            throw new Refusal("the token's " + part + " is not a JSON object");
        }
        if (node == null || !node.isObject()) {
            throw new Refusal("the token's " + part + " is not a JSON object");
        }
        return node;
    }
}
