package dev.knotless.spindle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.secrets.Secret;
import dev.knotless.secrets.SecretStore;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The secret XRPCs tangled's appview calls on a spindle: {@code sh.tangled.repo.addSecret},
 * {@code removeSecret} and {@code listSecrets}. Each needs a service-auth token ({@link Callers})
 * for this spindle and for that method, issued by the repository's owner; the repository must be
 * one this spindle serves. Values go to the runner's encrypted secret store under the repository's
 * clone URL, as {@code secrets set --repo URL} would put them; they never come back out (the list
 * has names, who set them and when).
 *
 * @param storeKey a watched repository's key in the secret store: its clone URL, as a run names it
 */
record SpindleSecrets(Callers callers, WatchedRepos repos, Function<WatchedRepos.Watched, String> storeKey, SecretStore store,
        SpindleStore notes, ObjectMapper json, Clock clock) {

    static final String ADD = "sh.tangled.repo.addSecret";
    static final String REMOVE = "sh.tangled.repo.removeSecret";
    static final String LIST = "sh.tangled.repo.listSecrets";

    /** What the XRPC answers: a status and a JSON body (an XRPC error is {@code {error, message}}). */
    record Answer(int status, JsonNode body) {}

    Answer add(@Nullable String authorization, JsonNode input) throws IOException {
        return asOwner(authorization, ADD, input.path("repo").asText(""), (caller, repo) -> {
            String key = input.path("key").asText("");
            String value = input.path("value").asText("");
            if (!input.path("value").isTextual() || value.isEmpty()) {
                return error(400, "InvalidRequest", "value must be a non-empty string");
            }
            Secret secret;
            try {
                secret = new Secret(key, value);
            } catch (IllegalArgumentException e) {
                return error(400, "InvalidRequest", e.getMessage());
            }
            String where = storeKey.apply(repo);
            store.put(where, secret);
            notes.noteSecret(where, new SpindleStore.SecretNote(key, clock.instant(), caller));
            return new Answer(200, json.createObjectNode());
        });
    }

    Answer remove(@Nullable String authorization, JsonNode input) throws IOException {
        return asOwner(authorization, REMOVE, input.path("repo").asText(""), (caller, repo) -> {
            String key = input.path("key").asText("");
            if (!Secret.isValidName(key)) {
                return error(400, "InvalidRequest", "key is not a secret name (letters, digits and _, not starting with a digit)");
            }
            String where = storeKey.apply(repo);
            store.remove(where, key);
            notes.forgetSecret(where, key);
            return new Answer(200, json.createObjectNode());
        });
    }

    Answer list(@Nullable String authorization, @Nullable String repoUri) throws IOException {
        return asOwner(authorization, LIST, repoUri == null ? "" : repoUri, (caller, repo) -> {
            String where = storeKey.apply(repo);
            ObjectNode out = json.createObjectNode();
            ArrayNode secrets = out.putArray("secrets");
            for (String name : store.names(where)) {
                Optional<SpindleStore.SecretNote> note = notes.secretNote(where, name);
                ObjectNode s = secrets.addObject();
                s.put("repo", repo.atUri());
                s.put("key", name);
                s.put("createdAt", DateTimeFormatter.ISO_INSTANT.format(note.map(SpindleStore.SecretNote::createdAt).orElse(Instant.EPOCH)));
                s.put("createdBy", note.map(SpindleStore.SecretNote::createdBy).orElse(repo.did()));
            }
            return new Answer(200, out);
        });
    }

    private interface AsOwner {
        Answer run(String caller, WatchedRepos.Watched repo) throws IOException;
    }

    private Answer asOwner(@Nullable String authorization, String method, String repoUri, AsOwner then) throws IOException {
        Callers.Caller caller = callers.verify(authorization, method);
        if (caller instanceof Callers.Caller.Refused refused) {
            return error(401, "AuthRequired", refused.reason());
        }
        String did = ((Callers.Caller.Known) caller).did();
        if (repoUri.isEmpty() || repoUri.length() > 2048) {
            return error(400, "InvalidRequest", "repo must be the AT-URI of an sh.tangled.repo record");
        }
        Optional<WatchedRepos.Watched> repo = repos.byAtUri(repoUri);
        if (repo.isEmpty()) {
            return error(400, "InvalidRepo", "this spindle serves no repository " + printable(repoUri));
        }
        if (!repo.get().did().equals(did)) {
            return error(403, "AccessControl", did + " does not own " + repoUri + "; only its owner sets its secrets here");
        }
        return then.run(did, repo.get());
    }

    private Answer error(int status, String tag, String message) {
        ObjectNode body = json.createObjectNode();
        body.put("error", tag);
        body.put("message", message);
        return new Answer(status, body);
    }

    private static String printable(String s) {
        String cut = s.length() > 200 ? s.substring(0, 200) + "…" : s;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
