package dev.knotless.cache;

import dev.knotless.tar.Bounded;
import java.util.List;
import java.util.Objects;

/**
 * The result of {@link CacheStore#promote} or {@link CacheStore#keep}: whether the upper layer
 * became the base for {@code ref}, and which least-recently-used layers were evicted to make room.
 *
 * <p>{@code stored} is false only when the upper layer alone is larger than the whole budget
 * ({@code budgetBytes}): it was dropped and the previous base, if any, stays.
 */
public record Promotion(CacheKey key, String ref, long bytes, boolean stored, long budgetBytes, List<Entry> evicted) {

    public Promotion {
        Objects.requireNonNull(key, "key");
        CacheKey.requireText(ref, "ref");
        evicted = List.copyOf(evicted);
    }

    /** One line for the run's log. */
    public String describe() {
        if (!stored) {
            return "cache " + key + " not saved for " + ref + ": its " + Bounded.bytes(bytes)
                    + " alone exceed the cache budget of " + Bounded.bytes(budgetBytes);
        }
        String line = "cache " + key + " saved for " + ref + " (" + Bounded.bytes(bytes) + ")";
        if (evicted.isEmpty()) {
            return line;
        }
        long freed = evicted.stream().mapToLong(Entry::bytes).sum();
        return line + "; evicted " + evicted.size() + (evicted.size() == 1 ? " older layer" : " older layers")
                + " (" + Bounded.bytes(freed) + ") to stay within " + Bounded.bytes(budgetBytes);
    }
}
