package dev.knotless.runner.state;

import java.util.Locale;

/**
 * Where a pull request stands in the merge queue: {@code queued} until the lander takes it into a
 * batch, {@code testing} while a batch holding it runs, then {@code landed} or {@code rejected}.
 */
public enum QueueState {
    QUEUED,
    TESTING,
    LANDED,
    REJECTED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean isFinal() {
        return this == LANDED || this == REJECTED;
    }

    static QueueState parse(String wireName) {
        return valueOf(wireName.toUpperCase(Locale.ROOT));
    }
}
