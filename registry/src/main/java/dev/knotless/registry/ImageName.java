package dev.knotless.registry;

import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * An image as a workflow names it, by tag: {@code [host[:port]/]repository[:tag]} ({@code latest}
 * when no tag is given), split as Docker splits it (see {@link ImageReference}). What a pinned
 * reference is made from, once a registry said which manifest the tag names ({@link
 * Registry#digestOf}).
 *
 * @param named whether the name spells its registry out ({@code host/...}, {@code docker.io/...});
 *     false for Docker Hub's short forms ({@code debian:12}, {@code library/debian})
 */
public record ImageName(String registry, String repository, String tag, boolean named) {

    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");

    public ImageName {
        if (!ImageReference.isRegistryHost(registry)) {
            throw new IllegalArgumentException("bad registry host '" + registry + "'");
        }
        ImageReference.checkRepository(repository);
        if (tag == null || !TAG.matcher(tag).matches()) {
            throw new IllegalArgumentException("bad tag '" + tag + "'");
        }
    }

    /**
     * The name {@code image} gives, when it is a name by tag; empty for a reference already pinned
     * by digest ({@code name@sha256:...}).
     *
     * @throws IllegalArgumentException for text that is no image name
     */
    public static Optional<ImageName> parse(String image) {
        if (image == null || image.isEmpty()) {
            throw new IllegalArgumentException("image is missing");
        }
        if (image.contains("@")) {
            return Optional.empty();
        }
        int colon = image.lastIndexOf(':');
        boolean tagged = colon > image.lastIndexOf('/');
        String name = tagged ? image.substring(0, colon) : image;
        String tag = tagged ? image.substring(colon + 1) : "latest";
        String[] split = ImageReference.split(name);
        boolean named = name.indexOf('/') > 0 && !split[0].equals(ImageReference.DOCKER_HUB)
                || name.startsWith("docker.io/") || name.startsWith("index.docker.io/");
        return Optional.of(new ImageName(split[0], split[1], tag, named));
    }

    /** This name pinned to {@code digest}, as a pull spells it: the name as given, {@code @} and the digest. */
    public ImageReference pinned(Digest digest) {
        return new ImageReference(registry, repository, digest);
    }

    /** Whether the registry is spoken to over plain HTTP ({@link ImageReference#plainHttp}). */
    boolean plainHttp(Set<String> listed) {
        return ImageReference.plainHttp(registry, listed);
    }

    @Override
    public String toString() {
        return registry + "/" + repository + ":" + tag;
    }
}
