package dev.knotless.node.image;

import dev.knotless.registry.Credentials;
import dev.knotless.registry.ImageException;
import dev.knotless.registry.ImageName;
import dev.knotless.registry.Registry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Credentials against a real registry: htpasswd (Basic) and token auth (Bearer challenge). */
class RegistryAuthIT {

    static final String USER = "knotless";

    @TempDir
    Path dir;

    final String password = UUID.randomUUID().toString();
    final String repository = "knotless-it/auth-" + UUID.randomUUID().toString().substring(0, 8);

    ImagePuller puller(Optional<Credentials> credentials, String name) throws Exception {
        return new ImagePuller(new Registry(new OkHttpClient(), credentials), dir.resolve(name),
                Platform.LINUX_AMD64, ImagePuller.Limits.DEFAULT);
    }

    @Test
    void basicCredentialsAnswerAnHtpasswdRegistry() throws Exception {
        try (LocalRegistry registry = LocalRegistry.withUser(Files.createDirectories(dir.resolve("registry")), USER, password)) {
            String image = pushSmallImage(registry, new Pusher(registry.host(), repository,
                    okhttp3.Credentials.basic(USER, password)));

            ImagePuller.PulledImage pulled = puller(Optional.of(new Credentials(USER, password)), "ok").pull(image);
            assertThat(pulled.rootfs().resolve("hello")).hasContent("from a private registry");

            assertThatThrownBy(() -> puller(Optional.empty(), "anonymous").pull(image))
                    .isInstanceOf(ImageException.class)
                    .hasMessage("registry " + registry.host() + " wants credentials for " + repository
                            + " and none are configured");
            assertThatThrownBy(() -> puller(Optional.of(new Credentials(USER, "wrong")), "wrong").pull(image))
                    .isInstanceOf(ImageException.class)
                    .hasMessageStartingWith("registry refused access to manifest sha256:")
                    .hasMessageEndingWith("(HTTP 401)");
        }
    }

    @Test
    void aBearerChallengeIsAnsweredWithATokenFromTheRealm() throws Exception {
        Path registryDir = Files.createDirectories(dir.resolve("registry"));
        try (TokenServer tokens = TokenServer.start(registryDir, USER, password);
                LocalRegistry registry = LocalRegistry.withTokens(registryDir, tokens.realm(), "knotless-registry",
                        registryDir.resolve("token.pem"))) {
            String pushToken = tokens.token(USER, "knotless-registry", "repository:" + repository + ":pull,push");
            String image = pushSmallImage(registry, new Pusher(registry.host(), repository, "Bearer " + pushToken));
            tokens.authorizations.clear();

            ImagePuller.PulledImage pulled = puller(Optional.of(new Credentials(USER, password)), "ok").pull(image);
            assertThat(pulled.rootfs().resolve("hello")).hasContent("from a private registry");
            // One token for the repository, fetched once and reused for the manifest, config and layer.
            assertThat(tokens.authorizations).containsExactly(okhttp3.Credentials.basic(USER, password));

            assertThatThrownBy(() -> puller(Optional.empty(), "anonymous").pull(image))
                    .isInstanceOf(ImageException.class)
                    .hasMessage("token realm " + tokens.realm() + " refused a token for " + repository + " (HTTP 401)");
        }
    }

    /** A tag's digest, as the runner pins images: asked through the same challenge, the tag's manifest's digest. */
    @Test
    void aTagsDigestIsAskedThroughTheSameChallengeAndFollowsTheTag() throws Exception {
        Path registryDir = Files.createDirectories(dir.resolve("registry"));
        try (TokenServer tokens = TokenServer.start(registryDir, USER, password);
                LocalRegistry registry = LocalRegistry.withTokens(registryDir, tokens.realm(), "knotless-registry",
                        registryDir.resolve("token.pem"))) {
            String pushToken = tokens.token(USER, "knotless-registry", "repository:" + repository + ":pull,push");
            Pusher push = new Pusher(registry.host(), repository, "Bearer " + pushToken);
            Descriptor layer = push.blob(Pusher.LAYER_GZIP, new Layer().file("hello", "one").tarGz());
            Descriptor first = push.image(List.of(layer), List.of("cat", "/hello"), List.of());
            Descriptor second = push.image(List.of(layer), List.of("cat", "/hello", "/hello"), List.of());
            push.tag(first, "v1");
            Registry client = new Registry(new OkHttpClient(), Optional.of(new Credentials(USER, password)));
            ImageName v1 = ImageName.parse(registry.host() + "/" + repository + ":v1").orElseThrow();

            assertThat(client.digestOf(v1)).isEqualTo(first.digest());
            push.tag(second, "v1"); // the tag moved: the next question sees where it is now
            assertThat(client.digestOf(v1)).isEqualTo(second.digest());
            assertThatThrownBy(() -> client.digestOf(ImageName.parse(registry.host() + "/" + repository + ":v9").orElseThrow()))
                    .isInstanceOf(ImageException.class)
                    .hasMessage("tag v9 is not in " + registry.host() + "/" + repository);
            assertThatThrownBy(() -> new Registry(new OkHttpClient(), Optional.empty()).digestOf(v1))
                    .isInstanceOf(ImageException.class)
                    .hasMessage("token realm " + tokens.realm() + " refused a token for " + repository + " (HTTP 401)");
        }
    }

    private String pushSmallImage(LocalRegistry registry, Pusher push) throws Exception {
        Descriptor layer = push.blob(Pusher.LAYER_GZIP, new Layer().file("hello", "from a private registry").tarGz());
        Descriptor manifest = push.image(List.of(layer), List.of("cat", "/hello"), List.of());
        return registry.host() + "/" + repository + "@" + manifest.digest();
    }
}
