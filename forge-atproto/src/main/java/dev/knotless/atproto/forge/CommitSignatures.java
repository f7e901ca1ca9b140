package dev.knotless.atproto.forge;

import dev.knotless.atproto.identity.AtprotoKey;
import dev.knotless.atproto.identity.IdentityException;
import dev.knotless.atproto.repo.Commit;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a firehose commit was signed with its account's key ({@code #atproto} of the account's
 * DID document). Keys are kept a while per account, at most {@link #MAX_ACCOUNTS} of them, least
 * recently used first out: a busy PDS sends many commits of the same accounts. A commit that does
 * not verify under a kept key is checked once more under a key resolved afresh, as the account may
 * have rotated it since.
 */
public final class CommitSignatures {

    /** The signing key of an account, from its DID document. */
    @FunctionalInterface
    public interface Keys {
        AtprotoKey of(String did) throws IdentityException;
    }

    static final int MAX_ACCOUNTS = 10_000;
    static final Duration KEEP = Duration.ofMinutes(10);

    private record Kept(AtprotoKey key, Instant at) {}

    private final Keys keys;
    private final Clock clock;
    private final Map<String, Kept> kept = new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Kept> eldest) {
            return size() > MAX_ACCOUNTS;
        }
    };

    public CommitSignatures(Keys keys, Clock clock) {
        this.keys = keys;
        this.clock = clock;
    }

    /** Empty when {@code commit} is signed by its account's key; else why not, one line. */
    public synchronized Optional<String> refusal(Commit commit) {
        Kept k = kept.get(commit.did());
        Instant now = clock.instant();
        if (k != null && now.isBefore(k.at().plus(KEEP)) && k.key().verifies(commit.unsigned(), commit.sig())) {
            return Optional.empty();
        }
        AtprotoKey fresh;
        try {
            fresh = keys.of(commit.did());
        } catch (IdentityException e) {
            return Optional.of("the key of " + commit.did() + " cannot be had: " + e.getMessage());
        }
        kept.put(commit.did(), new Kept(fresh, now));
        return fresh.verifies(commit.unsigned(), commit.sig()) ? Optional.empty()
                : Optional.of("a commit of " + commit.did() + " whose signature does not verify under its key " + fresh.didKey());
    }
}
