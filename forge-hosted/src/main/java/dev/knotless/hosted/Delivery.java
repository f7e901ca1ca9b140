package dev.knotless.hosted;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** How one attempt to post a status ended. */
sealed interface Delivery {

    /** The forge took it (2xx). */
    record Posted() implements Delivery {}

    /** Worth another try: 5xx, 429, or no answer. {@code after}: what the forge asked for (Retry-After), or null. */
    record Again(String why, @Nullable Duration after) implements Delivery {}

    /** Not worth another try: the token, the project or the request is wrong (other 4xx). */
    record Refused(String why) implements Delivery {}
}
