package dev.knotless.plan.expression;

import dev.knotless.plan.expression.Expression.And;
import dev.knotless.plan.expression.Expression.Call;
import dev.knotless.plan.expression.Expression.Compare;
import dev.knotless.plan.expression.Expression.Context;
import dev.knotless.plan.expression.Expression.Filter;
import dev.knotless.plan.expression.Expression.Index;
import dev.knotless.plan.expression.Expression.Literal;
import dev.knotless.plan.expression.Expression.Not;
import dev.knotless.plan.expression.Expression.Operator;
import dev.knotless.plan.expression.Expression.Or;
import dev.knotless.plan.expression.Lexer.Kind;
import dev.knotless.plan.expression.Lexer.Token;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Recursive descent over the runner's grammar, loosest first: {@code ||}, {@code &&}, {@code ==
 * !=}, {@code < <= > >=}, {@code !}, then {@code .name}, {@code .*}, {@code [key]}, {@code [*]}
 * after a context, a call or a group (not after a literal, which the runner refuses too).
 *
 * <p>Hostile text is bounded before it costs anything: 21,000 characters, and GitHub's depth of
 * 50 counted on the tree as the runner counts it (an n-ary {@code &&} is one level; a group is
 * none), checked as each node is made. The recursion only nests on '(', '[' and a call's
 * arguments, and that nesting is held to 50 as well: every such level but a bare group adds a
 * level to the tree anyway, so only redundant parentheses more than 50 deep, which the runner
 * would take, are refused here.
 */
final class Parser {

    static final int MAX_LENGTH = 21_000;
    static final int MAX_DEPTH = 50;

    /** A node and the height of its tree (a leaf is 1), which the depth limit is about. */
    record Parsed(Expression expression, int height) {
    }

    private final Scope scope;
    private final List<Token> tokens;
    private int pos;
    private int nesting;

    private Parser(Scope scope, List<Token> tokens) {
        this.scope = scope;
        this.tokens = tokens;
    }

    /** Parses {@code text[start, end)}; offsets in the result and in errors are {@code text}'s. */
    static Parsed parse(String text, int start, int end, Scope scope) throws ExpressionException {
        if (end - start > MAX_LENGTH) {
            throw new ExpressionException("the expression is " + (end - start) + " characters long; GitHub allows "
                    + MAX_LENGTH, start);
        }
        Parser parser = new Parser(scope, Lexer.tokenize(text, start, end));
        if (parser.peek().kind() == Kind.END) {
            return new Parsed(new Literal(Value.NULL, start), 1);
        }
        Parsed parsed = parser.or();
        Token after = parser.peek();
        if (after.kind() != Kind.END) {
            throw parser.error(after, "expected an operator or the end of the expression");
        }
        return parsed;
    }

    /** The height of a tree as the limit counts it; for trees this parser made, so at most 50 deep. */
    static int height(Expression e) {
        int max = 0;
        for (Expression child : e.children()) {
            max = Math.max(max, height(child));
        }
        return max + 1;
    }

    static ExpressionException tooDeep(int offset) {
        return new ExpressionException("the expression nests deeper than " + MAX_DEPTH + " levels, GitHub's limit",
                offset);
    }

    private Parsed or() throws ExpressionException {
        Parsed first = and();
        if (peek().kind() != Kind.OR) {
            return first;
        }
        int offset = peek().offset();
        List<Expression> operands = new ArrayList<>();
        int height = flatten(first, operands, true);
        while (peek().kind() == Kind.OR) {
            next();
            height = Math.max(height, flatten(and(), operands, true));
        }
        return node(new Or(operands, offset), height + 1);
    }

    private Parsed and() throws ExpressionException {
        Parsed first = equality();
        if (peek().kind() != Kind.AND) {
            return first;
        }
        int offset = peek().offset();
        List<Expression> operands = new ArrayList<>();
        int height = flatten(first, operands, false);
        while (peek().kind() == Kind.AND) {
            next();
            height = Math.max(height, flatten(equality(), operands, false));
        }
        return node(new And(operands, offset), height + 1);
    }

    /** Adds the operand, or its operands when it is the same n-ary operator; the height they add. */
    private static int flatten(Parsed operand, List<Expression> into, boolean or) {
        if (or && operand.expression() instanceof Or o) {
            into.addAll(o.operands());
            return operand.height() - 1;
        }
        if (!or && operand.expression() instanceof And a) {
            into.addAll(a.operands());
            return operand.height() - 1;
        }
        into.add(operand.expression());
        return operand.height();
    }

    private Parsed equality() throws ExpressionException {
        Parsed left = relational();
        while (peek().kind() == Kind.EQ || peek().kind() == Kind.NE) {
            Token op = next();
            Parsed right = relational();
            left = compare(op, left, right);
        }
        return left;
    }

    private Parsed relational() throws ExpressionException {
        Parsed left = unary();
        while (true) {
            Kind k = peek().kind();
            if (k != Kind.LT && k != Kind.LE && k != Kind.GT && k != Kind.GE) {
                return left;
            }
            Token op = next();
            Parsed right = unary();
            left = compare(op, left, right);
        }
    }

    private Parsed compare(Token op, Parsed left, Parsed right) throws ExpressionException {
        Operator operator = switch (op.kind()) {
            case EQ -> Operator.EQ;
            case NE -> Operator.NE;
            case LT -> Operator.LT;
            case LE -> Operator.LE;
            case GT -> Operator.GT;
            default -> Operator.GE;
        };
        return node(new Compare(operator, left.expression(), right.expression(), op.offset()),
                Math.max(left.height(), right.height()) + 1);
    }

    /** A run of '!' wraps from the inside out, without recursion however long it is. */
    private Parsed unary() throws ExpressionException {
        List<Token> nots = new ArrayList<>();
        while (peek().kind() == Kind.NOT) {
            nots.add(next());
        }
        Parsed operand = postfix();
        for (int k = nots.size() - 1; k >= 0; k--) {
            operand = node(new Not(operand.expression(), nots.get(k).offset()), operand.height() + 1);
        }
        return operand;
    }

    private Parsed postfix() throws ExpressionException {
        boolean literal = peek().kind() == Kind.LITERAL;
        Parsed target = primary();
        if (literal) {
            return target;
        }
        while (true) {
            Token t = peek();
            if (t.kind() == Kind.DOT) {
                next();
                Token name = peek();
                if (name.kind() == Kind.PROPERTY) {
                    next();
                    Expression key = new Literal(Value.of(name.raw()), name.offset());
                    target = node(new Index(target.expression(), key, t.offset()), Math.max(target.height(), 1) + 1);
                } else if (name.kind() == Kind.STAR) {
                    next();
                    target = node(new Filter(target.expression(), t.offset()), Math.max(target.height(), 1) + 1);
                } else {
                    throw error(name, "expected a property name or '*' after '.'");
                }
            } else if (t.kind() == Kind.LBRACKET) {
                next();
                if (peek().kind() == Kind.STAR) {
                    next();
                    if (peek().kind() != Kind.RBRACKET) {
                        throw error(peek(), "expected ']' after '[*'");
                    }
                    next();
                    target = node(new Filter(target.expression(), t.offset()), Math.max(target.height(), 1) + 1);
                } else {
                    enter(t);
                    Parsed key = or();
                    close(Kind.RBRACKET, "']' to close the '[' at column " + (t.offset() + 1));
                    nesting--;
                    target = node(new Index(target.expression(), key.expression(), t.offset()),
                            Math.max(target.height(), key.height()) + 1);
                }
            } else {
                return target;
            }
        }
    }

    private Parsed primary() throws ExpressionException {
        Token t = peek();
        switch (t.kind()) {
            case LITERAL -> {
                next();
                return new Parsed(new Literal(nonNull(t.value()), t.offset()), 1);
            }
            case NAME -> {
                next();
                String context = scope.context(t.raw());
                if (context == null) {
                    throw new ExpressionException("unknown context " + Chars.quote(t.raw()) + ": "
                            + (scope.contexts().isEmpty() ? "no context is available here"
                                    : "expected one of " + scope.describeContexts()), t.offset());
                }
                return new Parsed(new Context(context, t.offset()), 1);
            }
            case FUNCTION -> {
                return call();
            }
            case LPAREN -> {
                next();
                enter(t);
                Parsed inner = or();
                close(Kind.RPAREN, "')' to close the '(' at column " + (t.offset() + 1));
                nesting--;
                return inner;
            }
            default -> throw error(t, "expected a value" + after());
        }
    }

    private Parsed call() throws ExpressionException {
        Token name = next();
        Builtin builtin = Builtin.named(name.raw());
        HostFunction host = builtin == null ? scope.function(name.raw()) : null;
        if (builtin == null && host == null) {
            throw new ExpressionException("unknown function " + Chars.quote(name.raw()) + ": expected a built-in one"
                    + (scope.functions().isEmpty() ? "" : " or one of " + hostFunctions()), name.offset());
        }
        String spelling = builtin != null ? builtin.spelling : host.name();
        int min = builtin != null ? builtin.min : host.minArguments();
        int max = builtin != null ? builtin.max : host.maxArguments();
        Token open = next(); // the lexer made it a function because '(' follows
        enter(open);
        List<Expression> arguments = new ArrayList<>();
        int height = 0;
        if (peek().kind() == Kind.RPAREN) {
            next();
        } else {
            while (true) {
                Parsed argument = or();
                arguments.add(argument.expression());
                height = Math.max(height, argument.height());
                Token t = peek();
                if (t.kind() == Kind.COMMA) {
                    next();
                } else if (t.kind() == Kind.RPAREN) {
                    next();
                    break;
                } else {
                    throw error(t, "expected an operator, ',' or ')' to end the arguments of " + spelling);
                }
            }
        }
        nesting--;
        int n = arguments.size();
        if (n < min || n > max) {
            throw new ExpressionException(spelling + " takes " + arity(min, max) + ", found " + n, name.offset());
        }
        if (builtin == Builtin.CASE && n % 2 == 0) {
            throw new ExpressionException("case takes an odd number of arguments (pairs of a predicate and its value,"
                    + " then the default), found " + n, name.offset());
        }
        return node(new Call(spelling, arguments, name.offset()), height + 1);
    }

    private String hostFunctions() {
        List<String> names = new ArrayList<>();
        for (HostFunction f : scope.functions()) {
            names.add(f.name());
        }
        return String.join(", ", names);
    }

    private static String arity(int min, int max) {
        if (min == max) {
            return min + (min == 1 ? " argument" : " arguments");
        }
        return max == 255 ? "at least " + min + (min == 1 ? " argument" : " arguments") : min + " to " + max + " arguments";
    }

    private void close(Kind closing, String what) throws ExpressionException {
        Token t = peek();
        if (t.kind() != closing) {
            throw error(t, "expected an operator or " + what);
        }
        next();
    }

    private void enter(Token opening) throws ExpressionException {
        if (++nesting > MAX_DEPTH) {
            throw tooDeep(opening.offset());
        }
    }

    private Parsed node(Expression e, int height) throws ExpressionException {
        if (height > MAX_DEPTH) {
            throw tooDeep(e.offset());
        }
        return new Parsed(e, height);
    }

    /** The current token; one the lexer could say more about fails here, where the parser reaches it. */
    private Token peek() throws ExpressionException {
        Token t = tokens.get(pos);
        if (t.kind() == Kind.BAD && t.problem() != null) {
            throw new ExpressionException(t.problem(), t.offset());
        }
        return t;
    }

    private Token next() {
        return tokens.get(pos++);
    }

    /** " after 'x'" when the token before the current one is what demanded a value. */
    private String after() {
        if (pos == 0) {
            return "";
        }
        Token before = tokens.get(pos - 1);
        return before.kind().isOperator() || before.kind() == Kind.LPAREN || before.kind() == Kind.COMMA
                || before.kind() == Kind.LBRACKET ? " after " + Chars.quote(before.raw()) : "";
    }

    private ExpressionException error(Token found, String expected) {
        String what = found.kind() == Kind.END ? "the end of the expression" : Chars.quote(found.raw());
        return new ExpressionException(expected + ", found " + what, found.offset());
    }

    private static Value nonNull(@Nullable Value v) {
        if (v == null) {
            throw new IllegalStateException("a literal token without its value");
        }
        return v;
    }
}
