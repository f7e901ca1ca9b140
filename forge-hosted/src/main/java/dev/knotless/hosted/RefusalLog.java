package dev.knotless.hosted;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Says that webhooks were refused, at most once per forge per {@link #EVERY}: a flood of forged
 * requests is one line a minute, with the count of those not said, instead of a line each. The line
 * names no signature, neither the one expected nor the one sent.
 */
final class RefusalLog {

    static final Duration EVERY = Duration.ofMinutes(1);

    private final Consumer<String> log;
    private final Clock clock;
    private final Map<ForgeKind, Instant> nextLine = new EnumMap<>(ForgeKind.class);
    private final Map<ForgeKind, Long> unsaid = new EnumMap<>(ForgeKind.class);

    RefusalLog(Consumer<String> log, Clock clock) {
        this.log = log;
        this.clock = clock;
    }

    /** One request from {@code kind} refused for its signature. */
    void refused(ForgeKind kind) {
        String line;
        synchronized (this) {
            Instant now = clock.instant();
            Instant next = nextLine.get(kind);
            if (next != null && now.isBefore(next)) {
                unsaid.merge(kind, 1L, Long::sum);
                return;
            }
            long before = unsaid.getOrDefault(kind, 0L);
            unsaid.remove(kind);
            nextLine.put(kind, now.plus(EVERY));
            line = kind.wireName() + " webhook refused: its signature is missing or wrong (check the secret in the forge's"
                    + " hook and in --webhook-secret-file)"
                    + (before == 0 ? "" : "; " + before + " more refused since the last such line");
        }
        log.accept(line);
    }
}
