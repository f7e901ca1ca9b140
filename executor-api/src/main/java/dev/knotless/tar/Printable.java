package dev.knotless.tar;

/**
 * Names that came from a run (archive entries, output files), made safe to print on one line:
 * whatever a run wrote reaches a terminal, a log or a check record only through here.
 */
public final class Printable {

    /** Longest name shown; the rest becomes {@code ...}. */
    public static final int MAX = 200;

    private Printable() {}

    /**
     * {@code name} with C0 controls, DEL and C1 controls (ESC, so every terminal escape sequence,
     * newlines, carriage returns) as {@code \xNN}, and Unicode line separators and bidirectional
     * overrides (which reorder what a reader sees) as {@code u{NNNN}} after a backslash; at most {@value #MAX}
     * characters.
     */
    public static String name(String name) {
        StringBuilder b = new StringBuilder(Math.min(name.length(), MAX) + 8);
        for (int i = 0; i < name.length() && b.length() < MAX; i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                b.append(String.format("\\x%02x", (int) c));
            } else if (reorders(c)) {
                b.append(String.format("\\u{%04x}", (int) c));
            } else {
                b.append(c);
            }
        }
        return name.length() > MAX ? b + "..." : b.toString();
    }

    private static boolean reorders(char c) {
        return c == 0x2028 || c == 0x2029 || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e)
                || (c >= 0x2066 && c <= 0x2069);
    }
}
