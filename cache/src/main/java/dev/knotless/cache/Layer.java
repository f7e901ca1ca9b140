package dev.knotless.cache;

import java.time.Instant;
import java.util.Objects;

/**
 * A stored base layer found by {@link CacheStore#base}: the one for {@code ref} (the run's own
 * branch or pull ref, or the default branch it fell back to), {@code bytes} compressed, written
 * at {@code created} by a run that was ({@code secretsGranted}) or was not granted a secret.
 * Restore it with {@link CacheStore#restore(Layer)}.
 */
public record Layer(CacheKey key, String ref, long bytes, Instant created, boolean secretsGranted) {

    public Layer {
        Objects.requireNonNull(key, "key");
        CacheKey.requireText(ref, "ref");
        Objects.requireNonNull(created, "created");
    }
}
