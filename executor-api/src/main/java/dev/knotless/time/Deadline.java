package dev.knotless.time;

import java.time.Duration;

/**
 * A moment ahead on a {@link Ticker}: it passes when the ticker has advanced by the duration it
 * was made with, whatever the wall clock did meanwhile.
 *
 * @param atNanos the ticker's reading at which it passes
 */
public record Deadline(Ticker ticker, long atNanos) {

    /** The deadline {@code after} from now on {@code ticker}; a negative duration has passed already. */
    public static Deadline in(Duration after, Ticker ticker) {
        return new Deadline(ticker, ticker.nanos() + saturatedNanos(after));
    }

    /** The deadline {@code after} from now on the JVM's monotonic clock. */
    public static Deadline in(Duration after) {
        return in(after, Ticker.SYSTEM);
    }

    public boolean passed() {
        return ticker.nanos() - atNanos >= 0;
    }

    /** What is left until it passes; zero once it has. */
    public Duration left() {
        long left = atNanos - ticker.nanos();
        return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return d.isNegative() ? Long.MIN_VALUE / 2 : Long.MAX_VALUE / 2;
        }
    }
}
