package dev.knotless.runner.run;

import java.time.Duration;

/** Durations as people write them: {@code 850ms}, {@code 2.4s}, {@code 3m05s}, {@code 1h}. */
public final class Durations {

    private Durations() {}

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
