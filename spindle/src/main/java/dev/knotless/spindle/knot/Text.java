package dev.knotless.spindle.knot;

import dev.knotless.text.OneLine;

/** Other people's text, made fit for one log line. */
final class Text {

    private Text() {
    }

    /** {@code s} quoted for a message: one line, at most 80 characters. */
    static String quote(String s) {
        return "'" + OneLine.ofUntrusted(s, 80) + "'";
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
