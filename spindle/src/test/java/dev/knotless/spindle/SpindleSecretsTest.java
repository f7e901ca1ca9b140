package dev.knotless.spindle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.secrets.SecretStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The secret XRPCs over a stand-in for service auth (its own tests are {@code ServiceAuthTest} and
 * {@code ServiceAuthIT}): only the owner of a repository this spindle serves sets, lists and removes;
 * the method a token was checked for is the one called; values never come back.
 */
class SpindleSecretsTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String OWNER = "did:plc:owner";
    static final String URI = "at://did:plc:owner/sh.tangled.repo/3lweb";

    @TempDir Path dir;
    SpindleStore notes;
    SecretStore store = SecretStore.inMemory();
    /** The method each call was checked for. */
    final List<String> checkedFor = new java.util.concurrent.CopyOnWriteArrayList<>();
    SpindleSecrets secrets;
    WatchedRepos.Watched web = new WatchedRepos.Watched(URI, OWNER, "web", "knot.test");

    @BeforeEach
    void open() throws Exception {
        notes = SpindleStore.open(dir, Clock.systemUTC());
        Callers callers = (authorization, method) -> {
            checkedFor.add(method);
            return authorization == null ? new Callers.Caller.Refused("no token")
                    : new Callers.Caller.Known(authorization.substring("Bearer ".length()));
        };
        secrets = new SpindleSecrets(callers, () -> List.of(web), w -> "https://" + w.knot() + "/" + w.did() + "/" + w.name(),
                store, notes, JSON, Clock.fixed(Instant.parse("2026-12-04T10:00:00Z"), ZoneOffset.UTC));
    }

    @AfterEach
    void close() throws Exception {
        notes.close();
    }

    ObjectNode input(String key, String value) {
        ObjectNode n = JSON.createObjectNode().put("repo", URI).put("key", key);
        return value == null ? n : n.put("value", value);
    }

    @Test
    void theOwnerSetsListsAndRemovesAndTheValueNeverComesBack() throws Exception {
        assertThat(secrets.add("Bearer " + OWNER, input("TOKEN", "hunter22")).status()).isEqualTo(200);
        assertThat(store.get("https://knot.test/did:plc:owner/web", "TOKEN")).get().extracting(s -> s.value()).isEqualTo("hunter22");
        SpindleSecrets.Answer listed = secrets.list("Bearer " + OWNER, URI);
        assertThat(listed.status()).isEqualTo(200);
        assertThat(listed.body().toString()).contains("\"key\":\"TOKEN\"").contains("\"createdBy\":\"did:plc:owner\"")
                .contains("2026-12-04T10:00:00Z").doesNotContain("hunter22");
        assertThat(secrets.remove("Bearer " + OWNER, input("TOKEN", null)).status()).isEqualTo(200);
        assertThat(store.names("https://knot.test/did:plc:owner/web")).isEmpty();
        assertThat(checkedFor).containsExactly(SpindleSecrets.ADD, SpindleSecrets.LIST, SpindleSecrets.REMOVE);
    }

    @Test
    void anotherAccountAnUnservedRepositoryAndNoTokenAreRefused() throws Exception {
        SpindleSecrets.Answer other = secrets.add("Bearer did:plc:someone", input("TOKEN", "x-value"));
        assertThat(other.status()).isEqualTo(403);
        assertThat(other.body().path("error").asText()).isEqualTo("AccessControl");
        SpindleSecrets.Answer unserved = secrets.add("Bearer " + OWNER, input("TOKEN", "x-value").put("repo",
                "at://did:plc:owner/sh.tangled.repo/other"));
        assertThat(unserved.status()).isEqualTo(400);
        assertThat(unserved.body().path("error").asText()).isEqualTo("InvalidRepo");
        assertThat(secrets.add(null, input("TOKEN", "x-value")).status()).isEqualTo(401);
        assertThat(store.names("https://knot.test/did:plc:owner/web")).isEmpty();
    }

    @Test
    void aBadNameOrValueIsOneClearLineNamingNoValue() throws Exception {
        SpindleSecrets.Answer badName = secrets.add("Bearer " + OWNER, input("1-bad", "x-value"));
        assertThat(badName.status()).isEqualTo(400);
        assertThat(badName.body().path("message").asText()).contains("not a shell identifier");
        SpindleSecrets.Answer noValue = secrets.add("Bearer " + OWNER, input("TOKEN", null));
        assertThat(noValue.status()).isEqualTo(400);
        SpindleSecrets.Answer nul = secrets.add("Bearer " + OWNER, input("TOKEN", "a\u0000b-secretvalue"));
        assertThat(nul.status()).isEqualTo(400);
        assertThat(nul.body().toString()).doesNotContain("secretvalue");
    }
}
