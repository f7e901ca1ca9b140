package dev.knotless.http;

/** Names that came from a run (output files), made safe to print on one line. */
final class Names {

    private static final int MAX = 200;

    private Names() {}

    /** {@code name} with control characters as {@code \xNN} and at most {@value #MAX} characters. */
    static String printable(String name) {
        StringBuilder b = new StringBuilder(Math.min(name.length(), MAX) + 8);
        for (int i = 0; i < name.length() && b.length() < MAX; i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
                b.append(String.format("\\x%02x", (int) c));
            } else {
                b.append(c);
            }
        }
        return name.length() > MAX ? b + "..." : b.toString();
    }
}
