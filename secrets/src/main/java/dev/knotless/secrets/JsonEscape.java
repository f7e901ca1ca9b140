package dev.knotless.secrets;

/**
 * How the common encoders write a string inside JSON, for the masker's forms: each writes the
 * same value differently, and a masked log must not show it in any of them.
 */
enum JsonEscape {
    /** RFC 8259's required escapes only, short forms where JSON has them (Jackson, jq). */
    MINIMAL,
    /** Also {@code <}, {@code >}, {@code &}, U+2028 and U+2029 as unicode escapes (Go's encoding/json). */
    HTML_SAFE,
    /** Also every character above U+007F as a unicode escape, surrogates apart (Python's json.dumps). */
    ASCII;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** {@code value} escaped as inside a JSON string, without the quotes. */
    String body(String value) {
        StringBuilder b = new StringBuilder(value.length() + 16);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                default -> {
                    if (c < 0x20 || escapes(c)) {
                        b.append('\\').append('u').append(HEX[c >> 12 & 0xf]).append(HEX[c >> 8 & 0xf])
                                .append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }

    private boolean escapes(char c) {
        return switch (this) {
            case MINIMAL -> false;
            case HTML_SAFE -> c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029';
            case ASCII -> c > 0x7f;
        };
    }
}
