package dev.knotless.node.image;

import dev.knotless.registry.Digest;
import dev.knotless.registry.Credentials;
import dev.knotless.registry.ImageException;
import dev.knotless.registry.ImageReference;
import dev.knotless.registry.Registry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which registries get plain HTTP, and credentials in clear: a registry named {@code
 * registry.test} (not loopback by name, though it resolves to this machine here) is spoken to over
 * HTTP only when listed, and a Bearer realm over HTTP gets the credentials only on loopback or a
 * listed registry. A real HTTP server on loopback stands in for both.
 */
class RegistryPlainHttpTest {

    private static final byte[] MANIFEST = "{\"schemaVersion\":2}".getBytes(StandardCharsets.UTF_8);

    private HttpServer server;
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private OkHttpClient client;
    private int port;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        port = server.getAddress().getPort();
        server.createContext("/", exchange -> {
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            seen.add(exchange.getRequestURI().getPath() + " " + authorization);
            if (exchange.getRequestURI().getPath().startsWith("/token")) {
                byte[] token = "{\"token\":\"t0k\"}".getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, token.length);
                exchange.getResponseBody().write(token);
            } else if (authorization == null) {
                String realm = exchange.getRequestURI().getPath().contains("/bearer/")
                        ? "Bearer realm=\"http://realm.test:" + port + "/token\"" : "Basic realm=\"test\"";
                exchange.getResponseHeaders().add("WWW-Authenticate", realm);
                exchange.sendResponseHeaders(401, -1);
            } else {
                exchange.sendResponseHeaders(200, MANIFEST.length);
                exchange.getResponseBody().write(MANIFEST);
            }
            exchange.close();
        });
        server.start();
        // Every name resolves to this machine: what differs is only how the reference names the registry.
        // 30 s only catch a server that never answers; the TLS test below waits out a shorter one.
        client = Registry.defaultClient().newBuilder().dns(host -> List.of(InetAddress.getLoopbackAddress()))
                .readTimeout(java.time.Duration.ofSeconds(30)).build();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private ImageReference image(String repository) {
        return ImageReference.parse("registry.test:" + port + "/" + repository + "@" + Digest.of(MANIFEST));
    }

    private static final Optional<Credentials> CREDENTIALS = Optional.of(new Credentials("ci", "secret"));

    @Test
    void aListedRegistryIsSpokenToOverPlainHttpAndGetsTheCredentials() throws Exception {
        Registry registry = new Registry(client, CREDENTIALS, Set.of("registry.test:" + port));

        assertThat(registry.manifest(image("basic/app"), Digest.of(MANIFEST))).isEqualTo(MANIFEST);
        assertThat(seen).containsExactly("/v2/basic/app/manifests/" + Digest.of(MANIFEST) + " null",
                "/v2/basic/app/manifests/" + Digest.of(MANIFEST) + " " + okhttp3.Credentials.basic("ci", "secret"));
    }

    @Test
    void anUnlistedRegistryOffLoopbackGetsTlsOnlySoNothingReachesThePlainServer() {
        // The plain server may wait for a request line that a TLS hello never ends: 2 s of it is enough.
        OkHttpClient impatient = client.newBuilder().readTimeout(java.time.Duration.ofSeconds(2)).build();
        Registry registry = new Registry(impatient, CREDENTIALS, Set.of("registry.test:1", "other.test:" + port));

        assertThatThrownBy(() -> registry.manifest(image("basic/app"), Digest.of(MANIFEST)))
                .isInstanceOf(ImageException.class).hasMessageStartingWith("cannot reach registry registry.test:" + port);
        assertThat(seen).as("a TLS hello is no request").isEmpty();
    }

    @Test
    void aBearerRealmOverPlainHttpGetsTheCredentialsOnlyWhenItsHostIsListed() throws Exception {
        Registry listedRealm = new Registry(client, CREDENTIALS, Set.of("registry.test:" + port, "realm.test:" + port));
        assertThat(listedRealm.manifest(image("bearer/app"), Digest.of(MANIFEST))).isEqualTo(MANIFEST);
        assertThat(seen).contains("/token " + okhttp3.Credentials.basic("ci", "secret"),
                "/v2/bearer/app/manifests/" + Digest.of(MANIFEST) + " Bearer t0k");

        seen.clear();
        Registry unlistedRealm = new Registry(client, CREDENTIALS, Set.of("registry.test:" + port));
        assertThatThrownBy(() -> unlistedRealm.manifest(image("bearer/app"), Digest.of(MANIFEST)))
                .isInstanceOf(ImageException.class)
                .hasMessage("registry registry.test:" + port + " names token realm http://realm.test:" + port
                        + "/token over plain HTTP off this machine; refused");
        assertThat(seen).as("the credentials never went to the realm").noneMatch(s -> s.startsWith("/token"));
    }

    @Test
    void aListedEntryMustBeARegistryAsAReferenceNamesIt() {
        assertThatThrownBy(() -> new Registry(client, Optional.empty(), Set.of("http://registry.test:5000")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bad plain-HTTP registry 'http://registry.test:5000': want HOST[:PORT]");
    }
}
