package dev.knotless.atproto.identity;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.text.OneLine;
import java.net.URI;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a DID document says that ATProto uses: the repository's signing key (the verification
 * method {@code #atproto}) and its PDS (the service {@code #atproto_pds}).
 */
public record DidDocument(String did, AtprotoKey signingKey, Optional<URI> pds) {

    /**
     * Reads {@code document}, which must be {@code did}'s own: a document whose {@code id} is
     * another DID says nothing about this one (a directory or host could serve any document).
     */
    public static DidDocument parse(String did, JsonNode document) throws IdentityException {
        if (!did.equals(document.path("id").asText())) {
            throw new IdentityException("the DID document served for " + did + " is "
                    + (document.path("id").isTextual() ? "that of " + OneLine.ofUntrusted(document.path("id").asText(), 120) : "not a DID document"));
        }
        AtprotoKey key = null;
        for (JsonNode method : document.path("verificationMethod")) {
            if (isFragment(method.path("id").asText(), did, "atproto")) {
                key = AtprotoKey.fromVerificationMethod(method.path("type").asText(""), method.path("publicKeyMultibase").asText(""));
                break;
            }
        }
        if (key == null) {
            throw new IdentityException("the DID document of " + did + " has no #atproto verification method");
        }
        URI pds = null;
        for (JsonNode service : document.path("service")) {
            if (isFragment(service.path("id").asText(), did, "atproto_pds")) {
                pds = endpoint(did, service.path("serviceEndpoint").asText(""));
                break;
            }
        }
        return new DidDocument(did, key, Optional.ofNullable(pds));
    }

    /** {@code #name} or {@code did#name}: documents use both. */
    private static boolean isFragment(String id, String did, String name) {
        return id.equals("#" + name) || id.equals(did + "#" + name);
    }

    private static @Nullable URI endpoint(String did, String text) throws IdentityException {
        try {
            URI uri = URI.create(text);
            if (!("https".equals(uri.getScheme()) || "http".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new IdentityException("the #atproto_pds of " + did + " is not an HTTP URL: " + OneLine.ofUntrusted(text, 120));
            }
            return uri;
        } catch (IllegalArgumentException e) {
            throw new IdentityException("the #atproto_pds of " + did + " is not a URL: " + OneLine.ofUntrusted(text, 120));
        }
    }

}
