package dev.knotless.checks;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What made a run happen. The wire name is the one workflow files, the command line and the check
 * JSON ({@link Check#event()}) use.
 */
public enum Event {
    /** A branch moved. The branch is the pushed one. */
    PUSH,
    /** A pull request was opened or updated. The branch is the one it would land on. */
    PULL,
    /** The merge queue tests a batch of changes. The branch is the one the batch would land on. */
    BATCH,
    /** Someone asked for a run. The branch is the one asked for. */
    MANUAL,
    /** A cron time of the workflow's {@code on.schedule} came. The branch is the one it runs on. */
    SCHEDULE;

    /** {@code push}, {@code pull}, {@code batch}, {@code manual} or {@code schedule}. */
    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The event with this wire name (exact, lower case).
     *
     * @throws IllegalArgumentException naming the choices when there is none
     */
    @JsonCreator
    public static Event parse(String wireName) {
        for (Event event : values()) {
            if (event.wireName().equals(wireName)) {
                return event;
            }
        }
        throw new IllegalArgumentException("unknown event '" + wireName + "' (use " + choices() + ")");
    }

    /** {@code push, pull, batch, manual or schedule}: for messages. */
    public static String choices() {
        String all = Arrays.stream(values()).map(Event::wireName).collect(Collectors.joining(", "));
        int last = all.lastIndexOf(", ");
        return all.substring(0, last) + " or " + all.substring(last + 2);
    }
}
