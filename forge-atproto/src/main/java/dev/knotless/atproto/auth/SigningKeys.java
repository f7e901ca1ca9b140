package dev.knotless.atproto.auth;

import dev.knotless.atproto.identity.AtprotoKey;
import dev.knotless.atproto.identity.DidResolver;
import dev.knotless.atproto.identity.IdentityException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code #atproto} keys of issuers, resolved through a {@link DidResolver} and kept for a
 * while: a caller sends many requests in a row, and each would otherwise cost a PLC or did:web
 * lookup. Bounded (least recently used out first) so that tokens naming ever new DIDs cannot grow
 * it without end; entries expire on the injected clock so that a rotated key is seen within
 * {@code ttl} even if nobody asks for a refresh. Thread-safe: the map is guarded by this object;
 * resolution happens outside the lock, so a slow directory does not hold up other issuers.
 */
final class SigningKeys {

    /** A key and when it was resolved (a refresh is only worth it when the key is not brand new). */
    record Resolved(AtprotoKey key, Instant at) {}

    private final DidResolver resolver;
    private final Clock clock;
    private final Duration ttl;
    private final int maxEntries;

    /* @GuardedBy("this") */
    private final Map<String, Resolved> entries;

    SigningKeys(DidResolver resolver, Clock clock, Duration ttl, int maxEntries) {
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.ttl = Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || maxEntries < 0) {
            throw new IllegalArgumentException("a key cache of " + maxEntries + " entries for " + ttl + " (neither may be negative)");
        }
        this.maxEntries = maxEntries;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Resolved> eldest) {
                return size() > SigningKeys.this.maxEntries;
            }
        };
    }

    /** The key of {@code did}: the cached one while it is younger than the ttl, else resolved now. */
    Resolved get(String did) throws IdentityException {
        Instant now = clock.instant();
        synchronized (this) {
            Resolved cached = entries.get(did);
            if (cached != null && now.isBefore(cached.at().plus(ttl))) {
                return cached;
            }
            entries.remove(did);
        }
        return resolve(did);
    }

    /** Resolves {@code did} now, whatever is cached, and caches the answer. */
    Resolved resolve(String did) throws IdentityException {
        Resolved fresh = new Resolved(resolver.resolve(did).signingKey(), clock.instant());
        synchronized (this) {
            if (maxEntries > 0 && !ttl.isZero()) {
                entries.put(did, fresh);
            }
        }
        return fresh;
    }

    synchronized int size() {
        return entries.size();
    }
}
