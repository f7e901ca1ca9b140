package dev.knotless.cache;

import java.time.Instant;
import java.util.Objects;

/** One stored layer as {@link CacheStore#list()} shows it; {@code bytes} are compressed bytes. */
public record Entry(CacheKey key, String ref, long bytes, Instant lastUsed, Instant created) {

    public Entry {
        Objects.requireNonNull(key, "key");
        CacheKey.requireText(ref, "ref");
        Objects.requireNonNull(lastUsed, "lastUsed");
        Objects.requireNonNull(created, "created");
    }

    public String repo() {
        return key.repo();
    }

    public String scope() {
        return key.scope();
    }
}
