package dev.knotless.spindle.knot;

import org.jspecify.annotations.Nullable;

/** Other people's text, made fit for one log line. */
final class Text {

    private Text() {
    }

    /** {@code s} on one line (control characters as spaces), at most {@code most} characters and an ellipsis. */
    static String oneLine(@Nullable String s, int most) {
        String line = String.valueOf(s).replaceAll("\\p{Cntrl}+", " ");
        return line.length() > most ? line.substring(0, most) + "…" : line;
    }

    /** {@code s} quoted for a message: one line, at most 80 characters. */
    static String quote(String s) {
        return "'" + oneLine(s, 80) + "'";
    }

    /** The length of {@code s} in UTF-8, without encoding it. */
    static long utf8Length(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }
}
