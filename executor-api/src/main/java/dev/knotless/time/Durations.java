package dev.knotless.time;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people write them, both ways: {@link #parse} reads the forms workflows and command
 * line options take ({@code 90s}, {@code 10m}, {@code 1h30m}, seconds); {@link #human} writes
 * {@code 850ms}, {@code 2.4s}, {@code 3m05s}, {@code 1h}.
 */
public final class Durations {

    private static final Pattern HMS = Pattern.compile("(?:(\\d{1,9})h)?(?:(\\d{1,9})m)?(?:(\\d{1,9})s)?");
    private static final Pattern SECONDS = Pattern.compile("\\d{1,12}");

    private Durations() {}

    /**
     * Parses {@code 90s}, {@code 10m}, {@code 1h}, {@code 1h30m}, {@code 1h30m15s} or a whole
     * number of seconds; more than zero.
     *
     * @throws IllegalArgumentException saying what forms are accepted
     * @throws ArithmeticException when it is too long for a {@link Duration}
     */
    public static Duration parse(String text) {
        String s = text.strip();
        Duration duration;
        if (SECONDS.matcher(s).matches()) {
            duration = Duration.ofSeconds(Long.parseLong(s));
        } else {
            Matcher m = HMS.matcher(s);
            if (s.isEmpty() || !m.matches()) {
                throw new IllegalArgumentException(
                        "not a duration: '" + text + "' (use 90s, 10m, 1h, 1h30m or a whole number of seconds)");
            }
            duration = Duration.ofHours(group(m, 1)).plusMinutes(group(m, 2)).plusSeconds(group(m, 3));
        }
        if (duration.isZero()) {
            throw new IllegalArgumentException("a duration of zero; give more than 0s");
        }
        return duration;
    }

    private static long group(Matcher m, int group) {
        return m.group(group) == null ? 0 : Long.parseLong(m.group(group));
    }

    public static String human(long millis) {
        if (millis < 1000) {
            return millis + "ms";
        }
        if (millis < 60_000) {
            return String.format("%.1fs", millis / 1000.0);
        }
        long s = millis / 1000;
        if (s < 3600) {
            return String.format("%dm%02ds", s / 60, s % 60);
        }
        return String.format("%dh%02dm", s / 3600, (s % 3600) / 60);
    }

    public static String human(Duration d) {
        long s = d.toSeconds();
        if (d.toMillis() % 1000 != 0 || s == 0) {
            return human(d.toMillis());
        }
        if (s % 3600 == 0) {
            return s / 3600 + "h";
        }
        if (s % 60 == 0) {
            return s / 60 + "m";
        }
        return s + "s";
    }
}
