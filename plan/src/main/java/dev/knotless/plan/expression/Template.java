package dev.knotless.plan.expression;

import dev.knotless.plan.expression.Expression.Call;
import dev.knotless.plan.expression.Expression.Literal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A workflow's text with {@code ${{ ... }}} in it ({@code run:}, {@code env:} values, a step's
 * name), split as the runner's template reader splits it: an expression ends at the first
 * <code>}}</code> outside a string literal, so <code>${{ '}}' }}</code> is the text
 * <code>}}</code>; an unclosed <code>${{</code> or an empty one is an error; there is no escape
 * for <code>${{</code> outside an expression.
 *
 * <p>The runner evaluates text with literal parts or several expressions as one {@code
 * format('...{0}...', ...)} call, and checks that call against its limits: so a text may hold at
 * most 254 expressions, and the call, literal text included, at most 21,000 characters and 50
 * levels. A text that is one expression keeps its value's kind ({@link #evaluateValue}); {@link
 * #expression()} is the tree the runner evaluates.
 */
public final class Template {

    /** A piece of the text, in order. */
    public sealed interface Part permits Text, Embedded {
    }

    /** Text as written. */
    public record Text(String text, int offset) implements Part {
        public Text {
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * A {@code ${{ ... }}}.
     *
     * @param offset where its <code>${{</code> starts
     * @param end just after its <code>}}</code>
     */
    public record Embedded(Expression expression, int offset, int end) implements Part {
        public Embedded {
            Objects.requireNonNull(expression, "expression");
        }
    }

    private static final String OPEN = "${{";
    private static final int MAX_EXPRESSIONS = 254;

    private final String text;
    private final List<Part> parts;
    private final Expression expression;
    private final long length;

    private Template(String text, List<Part> parts, Expression expression, long length) {
        this.text = text;
        this.parts = List.copyOf(parts);
        this.expression = expression;
        this.length = length;
    }

    /** Offsets in parts and errors are {@code text}'s. */
    public static Template parse(String text, Scope scope) throws ExpressionException {
        List<Part> parts = new ArrayList<>();
        List<Integer> lengths = new ArrayList<>();
        int next = text.indexOf(OPEN);
        int i = 0;
        while (i < text.length()) {
            if (i == next) {
                int start = i;
                int close = -1;
                boolean inString = false;
                for (i += OPEN.length(); i < text.length(); i++) {
                    char c = text.charAt(i);
                    if (c == '\'') {
                        inString = !inString; // '' inside a string toggles twice
                    } else if (!inString && c == '}' && text.charAt(i - 1) == '}') {
                        close = i;
                        i++;
                        break;
                    }
                }
                if (close < 0) {
                    throw new ExpressionException("'${{' is not closed: expected '}}' after the expression", start);
                }
                int from = start + OPEN.length();
                int to = close - 1;
                while (from < to && Chars.isWhiteSpace(text.charAt(from))) {
                    from++;
                }
                while (to > from && Chars.isWhiteSpace(text.charAt(to - 1))) {
                    to--;
                }
                if (from == to) {
                    throw new ExpressionException("expected an expression between '${{' and '}}'", start);
                }
                parts.add(new Embedded(Parser.parse(text, from, to, scope).expression(), start, i));
                lengths.add(to - from);
                next = text.indexOf(OPEN, i);
            } else if (next >= 0 && i < next) {
                parts.add(new Text(text.substring(i, next), i));
                i = next;
            } else {
                parts.add(new Text(text.substring(i), i));
                break;
            }
        }
        return asOneExpression(text, parts, lengths);
    }

    /** The text as written, the value of a template without expressions. */
    public String text() {
        return text;
    }

    public List<Part> parts() {
        return parts;
    }

    /** Whether there is no expression in it: its value is {@link #text()}. */
    public boolean isLiteral() {
        for (Part p : parts) {
            if (p instanceof Embedded) {
                return false;
            }
        }
        return true;
    }

    /**
     * What the runner evaluates: the text as a string literal when there is no expression, the one
     * expression when the text is nothing else, otherwise {@code format('...', ...)} over the parts.
     */
    public Expression expression() {
        return expression;
    }

    public Set<String> contexts() {
        return expression.contexts();
    }

    public Set<String> functions() {
        return expression.functions();
    }

    /** The text with each expression's value in it, as text. */
    public String evaluate(Evaluator evaluator) throws ExpressionException {
        return isLiteral() ? text : evaluator.evaluate(expression).asString();
    }

    public String evaluate(Contexts contexts, Functions functions) throws ExpressionException {
        return evaluate(new Evaluator(contexts, functions));
    }

    /** As {@link #evaluate(Evaluator)}, except that a text that is one expression gives that value, of whatever kind. */
    public Value evaluateValue(Evaluator evaluator) throws ExpressionException {
        return evaluator.evaluate(expression);
    }

    public Value evaluateValue(Contexts contexts, Functions functions) throws ExpressionException {
        return evaluateValue(new Evaluator(contexts, functions));
    }

    /** The length of the expression text the runner evaluates (what its 21,000 characters limit). */
    long length() {
        return length;
    }

    @Override
    public String toString() {
        return "Template[" + text + "]";
    }

    /**
     * The runner's {@code format} call for text with literal parts or several expressions, checked as
     * the runner checks it: its argument count, length and depth.
     */
    private static Template asOneExpression(String text, List<Part> parts, List<Integer> lengths)
            throws ExpressionException {
        List<Expression> arguments = new ArrayList<>();
        StringBuilder format = new StringBuilder();
        long length = "format(''".length() + ")".length();
        for (Part part : parts) {
            if (part instanceof Text t) {
                format.append(t.text().replace("{", "{{").replace("}", "}}"));
                length += t.text().chars().map(c -> c == '{' || c == '}' || c == '\'' ? 2 : 1).asLongStream().sum();
            } else if (part instanceof Embedded e) {
                String placeholder = "{" + arguments.size() + "}";
                format.append(placeholder);
                length += placeholder.length() + ", ".length() + lengths.get(arguments.size());
                arguments.add(e.expression());
                if (arguments.size() > MAX_EXPRESSIONS) {
                    throw new ExpressionException("a text holds at most " + MAX_EXPRESSIONS
                            + " expressions: GitHub evaluates it as one format() call, of at most 255 arguments",
                            e.offset());
                }
            }
        }
        if (arguments.isEmpty()) {
            return new Template(text, parts, new Literal(Value.of(text), 0), 0);
        }
        if (parts.size() == 1) {
            return new Template(text, parts, arguments.get(0), lengths.get(0));
        }
        if (length > Parser.MAX_LENGTH) {
            throw new ExpressionException("the text and its expressions make a format() call of " + length
                    + " characters, which GitHub evaluates, and it allows " + Parser.MAX_LENGTH, 0);
        }
        List<Expression> all = new ArrayList<>();
        all.add(new Literal(Value.of(format.toString()), 0));
        all.addAll(arguments);
        for (Part part : parts) {
            if (part instanceof Embedded e && Parser.height(e.expression()) + 1 > Parser.MAX_DEPTH) {
                throw new ExpressionException("the expression nests deeper than " + Parser.MAX_DEPTH
                        + " levels, GitHub's limit, in the format() call GitHub makes of the text", e.offset());
            }
        }
        return new Template(text, parts, new Call(Builtin.FORMAT.spelling, all, 0), length);
    }
}
