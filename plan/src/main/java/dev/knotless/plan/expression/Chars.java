package dev.knotless.plan.expression;

/**
 * Character rules the runner takes from .NET, which Java's differ from: what is white space, and
 * how strings compare ignoring case.
 */
final class Chars {

    private Chars() {
    }

    /**
     * .NET's {@code Char.IsWhiteSpace}: the Unicode separators, tab to carriage return and NEL.
     * Java's {@code isWhitespace} leaves out the no-break spaces, which the runner skips.
     */
    static boolean isWhiteSpace(char c) {
        if (c == ' ' || c >= '\t' && c <= '\r' || c == '\u0085' || c == '\u00A0') {
            return true;
        }
        if (c < '\u1680') {
            return false;
        }
        int type = Character.getType(c);
        return type == Character.SPACE_SEPARATOR || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR;
    }

    /** .NET's {@code String.Trim()}. */
    static String trim(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && isWhiteSpace(s.charAt(start))) {
            start++;
        }
        while (end > start && isWhiteSpace(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(start, end);
    }

    /**
     * The key .NET's {@code OrdinalIgnoreCase} compares: each code point upper-cased, ordinally.
     * Unlike Java's {@code equalsIgnoreCase} it does not also compare lower case (the Kelvin sign
     * is not 'k'), and a non-ASCII letter never folds to an ASCII one: GitHub's test data has
     * dotless 'ı' unequal to 'I' (and 'ſ' to 'S' for the same reason).
     */
    static String fold(String s) {
        int n = s.length();
        int i = 0;
        while (i < n) {
            char c = s.charAt(i);
            if (c >= 0x80 || c >= 'a' && c <= 'z') {
                break;
            }
            i++;
        }
        if (i == n) {
            return s;
        }
        StringBuilder b = new StringBuilder(n).append(s, 0, i);
        while (i < n) {
            int cp = s.codePointAt(i);
            int upper = Character.toUpperCase(cp);
            b.appendCodePoint(cp >= 0x80 && upper < 0x80 ? cp : upper);
            i += Character.charCount(cp);
        }
        return b.toString();
    }

    /** GitHub's keyword: a context, function or property name: a letter or '_', then '-' too. */
    static boolean isKeyword(String s) {
        if (s.isEmpty() || !isKeywordStart(s.charAt(0))) {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!isKeywordStart(c) && !(c >= '0' && c <= '9') && c != '-') {
                return false;
            }
        }
        return true;
    }

    private static boolean isKeywordStart(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_';
    }

    /** Text from the workflow, quoted for a one-line message: control characters escaped, long text cut. */
    static String quote(String s) {
        StringBuilder b = new StringBuilder("'");
        int shown = Math.min(s.length(), 80);
        for (int i = 0; i < shown; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < ' ' || c == '\u007F' || c == '\u0085' || c == '\u2028' || c == '\u2029') {
                        b.append(String.format("<U+%04X>", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        if (shown < s.length()) {
            b.append("...");
        }
        return b.append('\'').toString();
    }
}
