package dev.knotless.plan.expression;

import dev.knotless.plan.expression.Expression.Call;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code format}'s first argument, read as the runner reads it before any other argument is
 * evaluated: literal text, and placeholders {@code {N}} (with <code>{{</code> and <code>}}</code>
 * for braces). Errors are the runner's: a lone brace, an index past the arguments (or over 255).
 */
final class FormatString {

    /** {@code {N}} or {@code {N:specifiers}}, ending at {@code end} (its '}'). */
    record Placeholder(int argument, String specifiers, int end) {
    }

    private FormatString() {}

    /**
     * The format's parts in order: {@link String}s to copy and {@link Placeholder}s to fill.
     *
     * @param given how many arguments follow the format
     */
    static List<Object> segments(String f, int given, Call c) throws ExpressionException {
        List<Object> segments = new ArrayList<>();
        int index = 0;
        while (index < f.length()) {
            int lbrace = f.indexOf('{', index);
            int rbrace = f.indexOf('}', index);
            if (lbrace >= 0 && (rbrace < 0 || rbrace > lbrace)) {
                if (charAt(f, lbrace + 1) == '{') {
                    segments.add(f.substring(index, lbrace + 1));
                    index = lbrace + 2;
                    continue;
                }
                Placeholder p = rbrace > lbrace + 1 ? placeholder(f, lbrace + 1) : null;
                if (p == null) {
                    throw invalidFormat(f, lbrace, "expected a placeholder such as {0}, or '{{' for a '{'", c);
                }
                if (p.argument() >= given) {
                    String follow = given == 0 ? "none follows" : "only " + given + (given == 1 ? " follows" : " follow");
                    throw new ExpressionException("format: " + Chars.quote(f) + " uses argument {" + p.argument() + "}, but "
                            + follow + " the format", c.offset());
                }
                segments.add(f.substring(index, lbrace));
                segments.add(p);
                index = p.end() + 1;
            } else if (rbrace >= 0) {
                if (charAt(f, rbrace + 1) != '}') {
                    throw invalidFormat(f, rbrace, "expected '}}' for a '}'", c);
                }
                segments.add(f.substring(index, rbrace + 1));
                index = rbrace + 2;
            } else {
                segments.add(f.substring(index));
                break;
            }
        }
        return segments;
    }

    /** {@code N} (a byte, as the runner reads it), optionally {@code :specifiers} ('}}' in them a brace), then '}'. */
    private static @Nullable Placeholder placeholder(String f, int start) {
        int i = start;
        int argument = 0;
        while (i < f.length() && f.charAt(i) >= '0' && f.charAt(i) <= '9') {
            argument = Math.min(argument * 10 + f.charAt(i) - '0', 256);
            i++;
        }
        if (i == start || argument > 255) {
            return null;
        }
        if (charAt(f, i) == '}') {
            return new Placeholder(argument, "", i);
        }
        if (charAt(f, i) != ':') {
            return null;
        }
        StringBuilder specifiers = new StringBuilder();
        for (i++; i < f.length(); i++) {
            char ch = f.charAt(i);
            if (ch != '}') {
                specifiers.append(ch);
            } else if (charAt(f, i + 1) == '}') {
                specifiers.append('}');
                i++;
            } else {
                return new Placeholder(argument, specifiers.toString(), i);
            }
        }
        return null;
    }

    private static char charAt(String s, int i) {
        return i < s.length() ? s.charAt(i) : '\0';
    }

    private static ExpressionException invalidFormat(String f, int at, String expected, Call c) {
        return new ExpressionException("format: " + Chars.quote(f) + " is not a valid format at index " + at + ": "
                + expected, c.offset());
    }
}
