package dev.knotless.cache;

import java.util.Objects;

/**
 * One cached path of one workflow in one repository: {@code repo} is the forge's name
 * ({@code "acme/widgets"}), {@code scope} names the workflow and path ({@code "ci:/root/.m2"}).
 *
 * <p>Both are opaque to the store: they never become file names. The files of a key are named
 * by a hash of both, and the raw values are kept in each layer's metadata.
 */
public record CacheKey(String repo, String scope) {

    public CacheKey {
        requireText(repo, "repo");
        requireText(scope, "scope");
    }

    /** The hex name of this key's files. */
    String id() {
        return Layout.id(repo, scope);
    }

    @Override
    public String toString() {
        return scope + " of " + repo;
    }

    static String requireText(String value, String what) {
        Objects.requireNonNull(value, what);
        if (value.isBlank()) {
            throw new IllegalArgumentException(what + " is blank");
        }
        return value;
    }
}
