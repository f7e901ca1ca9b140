package dev.knotless.plan.expression;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A parsed expression: the text inside {@code ${{ ... }}}, or an {@code if:}. Every node
 * keeps the offset of its token in the parsed text (an operator's, a function's name, a '.' or
 * '['), so an evaluation error can say where.
 *
 * <p>The tree is the runner's: {@code a.b} and {@code a['b']} are one {@link Index}, {@code a.*}
 * and {@code a[*]} one {@link Filter}, and {@code &&} and {@code ||} are n-ary, nested ones
 * flattened, which is also how the depth limit counts them.
 */
public sealed interface Expression
        permits Expression.Literal, Expression.Context, Expression.Index, Expression.Filter, Expression.Not,
        Expression.Compare, Expression.And, Expression.Or, Expression.Call {

    /**
     * Parses {@code text} (no {@code ${{ }}} around it) allowing what {@code scope} allows. At most
     * 21,000 characters and 50 levels deep, as GitHub; an empty text is the null literal, as in
     * the runner.
     */
    static Expression parse(String text, Scope scope) throws ExpressionException {
        return Parser.parse(text, 0, text.length(), scope).expression();
    }

    /** The offset of this node's token in the parsed text. */
    int offset();

    /** The direct operands, left to right. */
    default List<Expression> children() {
        return switch (this) {
            case Literal l -> List.of();
            case Context c -> List.of();
            case Index i -> List.of(i.target(), i.key());
            case Filter f -> List.of(f.target());
            case Not n -> List.of(n.operand());
            case Compare c -> List.of(c.left(), c.right());
            case And a -> a.operands();
            case Or o -> o.operands();
            case Call c -> c.arguments();
        };
    }

    /**
     * The contexts read, as the scope spells them, in the order first named: what a front-end
     * checks a field against, or asks whether the expression touches {@code secrets}.
     */
    default Set<String> contexts() {
        Set<String> names = new LinkedHashSet<>();
        for (Expression e : nodes(this)) {
            if (e instanceof Context c) {
                names.add(c.name());
            }
        }
        return Collections.unmodifiableSet(names);
    }

    /** The functions called, built-in and the host's, as declared, in the order first called. */
    default Set<String> functions() {
        Set<String> names = new LinkedHashSet<>();
        for (Expression e : nodes(this)) {
            if (e instanceof Call c) {
                names.add(c.name());
            }
        }
        return Collections.unmodifiableSet(names);
    }

    /** Evaluates with {@link Evaluator}'s default memory limit. */
    default Value evaluate(Contexts contexts, Functions functions) throws ExpressionException {
        return new Evaluator(contexts, functions).evaluate(this);
    }

    /** Null, a boolean, a number or a string. */
    record Literal(Value value, int offset) implements Expression {
        public Literal {
            if (!value.isPrimitive()) {
                throw new IllegalArgumentException("a literal is null, a boolean, a number or a string, not " + value.kind());
            }
        }

        @Override
        public String toString() {
            return Render.of(this);
        }
    }

    /** A context by name, as the scope declares it. */
    record Context(String name, int offset) implements Expression {
        public Context {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public String toString() {
            return Render.of(this);
        }
    }

    /** {@code target.key} or {@code target[key]}: a property of an object, an item of an array. */
    record Index(Expression target, Expression key, int offset) implements Expression {
        public Index {
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(key, "key");
        }

        @Override
        public String toString() {
            return Render.of(this);
        }
    }

    /**
     * {@code target.*} or {@code target[*]}: the values of an object or the items of an array as
     * a filtered array, to which a further index applies item by item ({@code needs.*.result}).
     */
    record Filter(Expression target, int offset) implements Expression {
        public Filter {
            Objects.requireNonNull(target, "target");
        }

        @Override
        public String toString() {
            return Render.of(this);
        }
    }

    /** {@code !operand}: a boolean, the operand's falsiness. */
    record Not(Expression operand, int offset) implements Expression {
        public Not {
            Objects.requireNonNull(operand, "operand");
        }

        @Override
        public String toString() {
            return Render.of(this);
        }
    }

    /** {@code left OP right}, one of the six comparisons: a boolean, by the loose rules. */
    record Compare(Operator operator, Expression left, Expression right, int offset) implements Expression {
        public Compare {
            Objects.requireNonNull(operator, "operator");
            Objects.requireNonNull(left, "left");
            Objects.requireNonNull(right, "right");
        }

        @Override
        public String toString() {
            return Render.of(this);
        }
    }

    /** {@code a && b && ...}: the first falsy operand's value, or the last's; the rest unevaluated. */
    record And(List<Expression> operands, int offset) implements Expression {
        public And {
            operands = List.copyOf(operands);
            if (operands.size() < 2) {
                throw new IllegalArgumentException("&& takes two operands or more");
            }
        }

        @Override
        public String toString() {
            return Render.of(this);
        }
    }

    /** {@code a || b || ...}: the first truthy operand's value, or the last's; the rest unevaluated. */
    record Or(List<Expression> operands, int offset) implements Expression {
        public Or {
            operands = List.copyOf(operands);
            if (operands.size() < 2) {
                throw new IllegalArgumentException("|| takes two operands or more");
            }
        }

        @Override
        public String toString() {
            return Render.of(this);
        }
    }

    /** A call of a built-in function (spelled as GitHub documents it) or of the host's (as declared). */
    record Call(String name, List<Expression> arguments, int offset) implements Expression {
        public Call {
            Objects.requireNonNull(name, "name");
            arguments = List.copyOf(arguments);
            Builtin builtin = Builtin.named(name);
            if (builtin != null && (arguments.size() < builtin.min || arguments.size() > builtin.max)) {
                throw new IllegalArgumentException(builtin.spelling + " takes " + builtin.min + " to " + builtin.max
                        + " arguments, not " + arguments.size());
            }
        }

        @Override
        public String toString() {
            return Render.of(this);
        }
    }

    /** The comparison operators, with GitHub's precedence: the relational ones bind tighter. */
    enum Operator {
        EQ("=="), NE("!="), LT("<"), LE("<="), GT(">"), GE(">=");

        private final String symbol;

        Operator(String symbol) {
            this.symbol = symbol;
        }

        public String symbol() {
            return symbol;
        }
    }

    /** Every node, each once, parents before children; without recursion, whatever the tree. */
    private static List<Expression> nodes(Expression root) {
        List<Expression> out = new java.util.ArrayList<>();
        Deque<Expression> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            Expression e = todo.pop();
            out.add(e);
            List<Expression> children = e.children();
            for (int i = children.size() - 1; i >= 0; i--) {
                todo.push(children.get(i));
            }
        }
        return out;
    }
}
