package dev.knotless.runner.run.environment;

import dev.knotless.registry.Digest;
import dev.knotless.registry.ImageException;
import dev.knotless.registry.ImageName;
import dev.knotless.registry.Registry;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;

/**
 * Pins a run's images by digest as it starts, for every executor alike: each image named by tag
 * is asked of the registry its name spells out (the OCI distribution API: the digest of the
 * manifest the tag names now), and the environment is made of {@code name@sha256:...}, so that
 * the check records exactly what ran and the node executor, which runs images by digest only,
 * can run a workflow that names a tag.
 *
 * <p>What is left as named, with the reason: an image already pinned; one whose name spells out
 * no registry (Docker Hub's short forms such as {@code debian:12}, and images only the local
 * engine holds, such as {@code local/ci:1}), which is not asked so that a run never reaches out to
 * Docker Hub unbidden (write {@code docker.io/library/debian:12} to have it pinned); and one the
 * registry would not say (unreachable, refused, no such tag), which the executor then pulls as
 * named, so pinning never fails a run that would have run. Registries are asked anonymously (a
 * bearer token from the registry's realm when it wants one), over TLS except on loopback and the
 * registries the operator lists as plain HTTP.
 */
public final class ImagePins {

    /** Asks no registry: every image is left as named, with nothing recorded. */
    public static final ImagePins NONE = new ImagePins(null);

    /** What became of one image. */
    public sealed interface Pin {
        /** The image as the workflow named it. */
        String asked();

        /** What the executor is given. */
        String reference();
    }

    /** Pinned: {@code reference} is the name with the digest its tag names now. */
    public record Pinned(String asked, String reference) implements Pin {}

    /** Left as named, because of {@code why}; null: it was pinned already, as the workflow wrote it. */
    public record Kept(String asked, @Nullable String why) implements Pin {
        @Override
        public String reference() {
            return asked;
        }
    }

    /**
     * Not asked of any registry, because of {@code why}: its name spells out none (or this runner
     * pins nothing). Nothing to tell a run about: such names (a local image, Docker Hub's short
     * forms) run as they always have.
     */
    public record Unasked(String asked, String why) implements Pin {
        @Override
        public String reference() {
            return asked;
        }
    }

    private final @Nullable Registry registry;

    private ImagePins(@Nullable Registry registry) {
        this.registry = registry;
    }

    /** Asks the registries images name, anonymously, each question bounded to about half a minute. */
    public static ImagePins fromRegistries() {
        return fromRegistries(Set.of());
    }

    /**
     * As {@link #fromRegistries()}, speaking plain HTTP to {@code plainHttp} too (registries as image
     * names spell them, {@code host:port}; those on loopback always are).
     *
     * @throws IllegalArgumentException for an entry that is no registry as an image name spells it
     */
    public static ImagePins fromRegistries(Set<String> plainHttp) {
        OkHttpClient http = new OkHttpClient.Builder()
                .connectTimeout(Duration.ofSeconds(10))
                .readTimeout(Duration.ofSeconds(20))
                .callTimeout(Duration.ofSeconds(30))
                .followSslRedirects(false)
                .build();
        return new ImagePins(new Registry(http, Optional.empty(), plainHttp));
    }

    /** Whether this asks registries at all. */
    public boolean asks() {
        return registry != null;
    }

    /** {@code image} pinned, or left as named with the reason. */
    public Pin pin(String image) {
        if (registry == null) {
            return new Unasked(image, "this runner pins no image");
        }
        Optional<ImageName> name;
        try {
            name = ImageName.parse(image);
        } catch (IllegalArgumentException e) {
            return new Kept(image, "not a name a registry takes (" + e.getMessage() + ")");
        }
        if (name.isEmpty()) {
            return new Kept(image, null);
        }
        if (!name.get().named()) {
            return new Unasked(image, "its name spells out no registry (a local image, or Docker Hub's short form: write"
                    + " docker.io/... to have it pinned)");
        }
        try {
            Digest digest = registry.digestOf(name.get());
            return new Pinned(image, withoutTag(image) + "@" + digest);
        } catch (ImageException e) {
            return new Kept(image, e.getMessage());
        }
    }

    /** The name as written, without its tag. */
    static String withoutTag(String image) {
        int colon = image.lastIndexOf(':');
        return colon > image.lastIndexOf('/') ? image.substring(0, colon) : image;
    }
}
