package dev.knotless.plan.expression;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Splits an expression into tokens the way the runner's {@code LexicalAnalyzer} does, so that the
 * same texts are numbers, names and errors: a token runs to the next white space or one of
 * {@code ( [ ) ] , . ! > < = & |}; a '.' starts a number where a value is due and is a dereference
 * after one; a name after a '.' is a property even if it is {@code true}; a name followed by '('
 * is a function.
 */
final class Lexer {

    enum Kind {
        LPAREN, RPAREN, LBRACKET, RBRACKET, COMMA, DOT, STAR,
        NOT, EQ, NE, LT, LE, GT, GE, AND, OR,
        LITERAL, PROPERTY, FUNCTION, NAME,
        /** Text that is no token; {@code problem} says why when more can be said than what was expected. */
        BAD,
        END;

        boolean isOperator() {
            return ordinal() >= NOT.ordinal() && ordinal() <= OR.ordinal();
        }
    }

    /**
     * @param raw the text as written (a string literal with its quotes)
     * @param value a literal's value
     * @param problem for some {@link Kind#BAD} tokens, the whole problem
     */
    record Token(Kind kind, String raw, int offset, @Nullable Value value, @Nullable String problem) {
    }

    private final String text;
    private final int end;
    private int i;
    private @Nullable Token last;

    private Lexer(String text, int start, int end) {
        this.text = text;
        this.i = start;
        this.end = end;
    }

    /** The tokens of {@code text[start, end)}, offsets in {@code text}, ending with {@link Kind#END}. */
    static List<Token> tokenize(String text, int start, int end) {
        Lexer lexer = new Lexer(text, start, end);
        List<Token> tokens = new ArrayList<>();
        Token t;
        do {
            t = lexer.next();
            tokens.add(t);
        } while (t.kind() != Kind.END && t.kind() != Kind.BAD);
        if (t.kind() == Kind.BAD) {
            tokens.add(new Token(Kind.END, "", end, null, null));
        }
        return tokens;
    }

    private Token next() {
        while (i < end && Chars.isWhiteSpace(text.charAt(i))) {
            i++;
        }
        if (i >= end) {
            return token(Kind.END, "", i, null);
        }
        int start = i;
        char c = text.charAt(i);
        return switch (c) {
            case '(' -> single(Kind.LPAREN);
            case ')' -> single(Kind.RPAREN);
            case '[' -> single(Kind.LBRACKET);
            case ']' -> single(Kind.RBRACKET);
            case ',' -> single(Kind.COMMA);
            case '*' -> single(Kind.STAR);
            case '\'' -> string();
            case '!', '>', '<', '=', '&', '|' -> operator();
            case '.' -> valueDue() ? number() : single(Kind.DOT);
            default -> c == '-' || c == '+' || c >= '0' && c <= '9' ? number() : word(start);
        };
    }

    /** Where the runner reads a '.' as the start of a number: first, or after '(' '[' ',' or an operator. */
    private boolean valueDue() {
        return last == null || last.kind() == Kind.COMMA || last.kind() == Kind.LPAREN || last.kind() == Kind.LBRACKET
                || last.kind().isOperator();
    }

    private Token single(Kind kind) {
        int start = i++;
        return token(kind, text.substring(start, i), start, null);
    }

    private Token string() {
        int start = i++;
        StringBuilder value = new StringBuilder();
        while (i < end) {
            char c = text.charAt(i++);
            if (c == '\'') {
                if (i >= end || text.charAt(i) != '\'') {
                    return token(Kind.LITERAL, text.substring(start, i), start, Value.of(value.toString()));
                }
                i++; // '' is a quote
            }
            value.append(c);
        }
        return bad(start, "the string is not closed: expected a ' to end it");
    }

    private Token operator() {
        int start = i;
        if (i + 1 < end) {
            Kind two = switch (text.substring(i, i + 2)) {
                case "!=" -> Kind.NE;
                case ">=" -> Kind.GE;
                case "<=" -> Kind.LE;
                case "==" -> Kind.EQ;
                case "&&" -> Kind.AND;
                case "||" -> Kind.OR;
                default -> null;
            };
            if (two != null) {
                i += 2;
                return token(two, text.substring(start, i), start, null);
            }
        }
        Kind one = switch (text.charAt(i)) {
            case '!' -> Kind.NOT;
            case '>' -> Kind.GT;
            case '<' -> Kind.LT;
            default -> null;
        };
        if (one != null) {
            i++;
            return token(one, text.substring(start, i), start, null);
        }
        i++;
        while (i < end && !isBoundary(text.charAt(i))) {
            i++;
        }
        return bad(start, null);
    }

    private Token number() {
        int start = i;
        do {
            i++;
        } while (i < end && (!isBoundary(text.charAt(i)) || text.charAt(i) == '.'));
        String raw = text.substring(start, i);
        double d = Numbers.parse(raw);
        if (Double.isNaN(d)) {
            return bad(start, Chars.quote(raw) + " is not a number: expected digits with an optional point and"
                    + " exponent, or 0x and hex digits");
        }
        return token(Kind.LITERAL, raw, start, Value.of(d));
    }

    private Token word(int start) {
        i++;
        while (i < end && !isBoundary(text.charAt(i))) {
            i++;
        }
        String raw = text.substring(start, i);
        if (!Chars.isKeyword(raw)) {
            return bad(start, null);
        }
        if (last != null && last.kind() == Kind.DOT) {
            return token(Kind.PROPERTY, raw, start, null);
        }
        Value literal = switch (raw) {
            case "null" -> Value.NULL;
            case "true" -> Value.TRUE;
            case "false" -> Value.FALSE;
            case "NaN" -> Value.of(Double.NaN);
            case "Infinity" -> Value.of(Double.POSITIVE_INFINITY);
            default -> null;
        };
        if (literal != null) {
            return token(Kind.LITERAL, raw, start, literal);
        }
        int ahead = i;
        while (ahead < end && Chars.isWhiteSpace(text.charAt(ahead))) {
            ahead++;
        }
        return token(ahead < end && text.charAt(ahead) == '(' ? Kind.FUNCTION : Kind.NAME, raw, start, null);
    }

    private Token bad(int start, @Nullable String problem) {
        last = new Token(Kind.BAD, text.substring(start, i), start, null, problem);
        return last;
    }

    private Token token(Kind kind, String raw, int offset, @Nullable Value value) {
        last = new Token(kind, raw, offset, value, null);
        return last;
    }

    private static boolean isBoundary(char c) {
        return switch (c) {
            case '(', '[', ')', ']', ',', '.', '!', '>', '<', '=', '&', '|' -> true;
            default -> Chars.isWhiteSpace(c);
        };
    }
}
