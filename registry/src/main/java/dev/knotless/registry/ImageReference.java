package dev.knotless.registry;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * A pinned image: {@code [host[:port]/]repository@sha256:<hex>}, the form {@code pull_image}
 * carries. As Docker does, the first component is a registry host when it has a dot or a port
 * or is {@code localhost}; otherwise the image is on Docker Hub, where one-component names live
 * under {@code library/}.
 */
public record ImageReference(String registry, String repository, Digest digest) {

    static final String DOCKER_HUB = "registry-1.docker.io";
    private static final Pattern HOST = Pattern.compile("[a-z0-9]+(?:[.-][a-z0-9]+)*(?::[0-9]{1,5})?");
    private static final Pattern REPOSITORY = Pattern.compile(
            "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*");

    public ImageReference {
        if (registry == null || !HOST.matcher(registry).matches()) {
            throw new IllegalArgumentException("bad registry host '" + registry + "'");
        }
        checkRepository(repository);
        if (digest == null) {
            throw new IllegalArgumentException("image digest is missing");
        }
    }

    public static ImageReference parse(String image) {
        if (image == null) {
            throw new IllegalArgumentException("image is missing");
        }
        int at = image.indexOf('@');
        if (at < 0) {
            throw new IllegalArgumentException("image '" + image + "' is not pinned: want name@sha256:<64 hex>");
        }
        Digest digest = Digest.parse(image.substring(at + 1));
        String[] split = split(image.substring(0, at));
        return new ImageReference(split[0], split[1], digest);
    }

    /**
     * A name's registry and repository, as Docker splits them: the first component is a registry
     * host when it has a dot or a port or is {@code localhost}; otherwise the image is on Docker
     * Hub, where one-component names live under {@code library/}.
     */
    static String[] split(String name) {
        int slash = name.indexOf('/');
        String first = slash < 0 ? "" : name.substring(0, slash);
        if (first.equals("docker.io") || first.equals("index.docker.io")) {
            name = name.substring(slash + 1);
        } else if (slash >= 0 && (first.contains(".") || first.contains(":") || first.equals("localhost"))) {
            return new String[] {first, name.substring(slash + 1)};
        }
        return new String[] {DOCKER_HUB, name.contains("/") ? name : "library/" + name};
    }

    static void checkRepository(String repository) {
        if (repository == null || !REPOSITORY.matcher(repository).matches()) {
            throw new IllegalArgumentException("bad repository name '" + repository + "'");
        }
    }

    /** The host without its port. */
    public String host() {
        return hostOf(registry);
    }

    private static String hostOf(String registry) {
        int colon = registry.indexOf(':');
        return colon < 0 ? registry : registry.substring(0, colon);
    }

    /**
     * Plain HTTP by default only to a registry on this machine ({@code localhost}, 127.0.0.0/8),
     * where nothing travels over a network; any other registry is spoken to over TLS. The digest
     * check would catch tampered content anyway, but credentials and bearer tokens must not cross a
     * network in clear unless the operator said so (see {@link #plainHttp}).
     */
    public boolean loopback() {
        return isLoopbackHost(host());
    }

    /**
     * Whether this image's registry is spoken to over plain HTTP: on loopback, or named exactly
     * ({@code host[:port]}, as the reference spells it) among {@code listed}, the registries the
     * operator declared plain HTTP ({@code node --plain-http-registry}, like Docker's
     * {@code insecure-registries}). A listed registry is trusted as loopback is: credentials and
     * tokens go to it in clear, since the operator chose a network where that is acceptable.
     */
    public boolean plainHttp(Set<String> listed) {
        return plainHttp(registry, listed);
    }

    /** {@link #plainHttp(Set)} for {@code registry} ({@code host[:port]}), whatever image of it is asked for. */
    static boolean plainHttp(String registry, Set<String> listed) {
        return isLoopbackHost(hostOf(registry)) || listed.contains(registry);
    }

    /** Where {@code registry}'s API is: {@code http://} or {@code https://} by {@link #plainHttp(String, Set)}. */
    static String baseUrl(String registry, Set<String> listed) {
        return (plainHttp(registry, listed) ? "http://" : "https://") + registry;
    }

    /** Whether {@code registry} is a registry host as a reference names it: {@code host[:port]}, lower case. */
    public static boolean isRegistryHost(String registry) {
        return registry != null && HOST.matcher(registry).matches();
    }

    public static boolean isLoopbackHost(String host) {
        return host.equals("localhost") || host.equals("::1") || host.equals("[::1]")
                || host.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
    }

    public String baseUrl() {
        return baseUrl(Set.of());
    }

    public String baseUrl(Set<String> plainHttpRegistries) {
        return baseUrl(registry, plainHttpRegistries);
    }

    @Override
    public String toString() {
        return registry + "/" + repository + "@" + digest;
    }
}
