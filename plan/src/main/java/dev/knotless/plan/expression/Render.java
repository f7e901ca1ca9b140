package dev.knotless.plan.expression;

import dev.knotless.plan.expression.Expression.And;
import dev.knotless.plan.expression.Expression.Call;
import dev.knotless.plan.expression.Expression.Compare;
import dev.knotless.plan.expression.Expression.Context;
import dev.knotless.plan.expression.Expression.Filter;
import dev.knotless.plan.expression.Expression.Index;
import dev.knotless.plan.expression.Expression.Literal;
import dev.knotless.plan.expression.Expression.Not;
import dev.knotless.plan.expression.Expression.Or;
import dev.knotless.plan.expression.Value.StringValue;

/**
 * An expression written back as text that parses to the same tree, binary operators in
 * parentheses so that the grouping shows: {@code (success() && (github.ref == 'refs/heads/main'))}.
 * A parsed tree is at most 50 deep, so the recursion is bounded.
 */
final class Render {

    private Render() {
    }

    static String of(Expression e) {
        StringBuilder b = new StringBuilder();
        write(e, b);
        return b.toString();
    }

    private static void write(Expression e, StringBuilder b) {
        switch (e) {
            case Literal l -> b.append(literal(l.value()));
            case Context c -> b.append(c.name());
            case Index i -> {
                write(i.target(), b);
                if (i.key() instanceof Literal l && l.value() instanceof StringValue s && Chars.isKeyword(s.value())) {
                    b.append('.').append(s.value());
                } else {
                    b.append('[');
                    write(i.key(), b);
                    b.append(']');
                }
            }
            case Filter f -> {
                write(f.target(), b);
                b.append(".*");
            }
            case Not n -> {
                b.append('!');
                write(n.operand(), b);
            }
            case Compare c -> {
                b.append('(');
                write(c.left(), b);
                b.append(' ').append(c.operator().symbol()).append(' ');
                write(c.right(), b);
                b.append(')');
            }
            case And a -> operands(a.operands(), " && ", b);
            case Or o -> operands(o.operands(), " || ", b);
            case Call c -> {
                b.append(c.name()).append('(');
                for (int i = 0; i < c.arguments().size(); i++) {
                    b.append(i == 0 ? "" : ", ");
                    write(c.arguments().get(i), b);
                }
                b.append(')');
            }
        }
    }

    private static void operands(java.util.List<Expression> operands, String operator, StringBuilder b) {
        b.append('(');
        for (int i = 0; i < operands.size(); i++) {
            b.append(i == 0 ? "" : operator);
            write(operands.get(i), b);
        }
        b.append(')');
    }

    /** A primitive as a literal: strings quoted with {@code ''} for a quote, numbers as the runner prints them. */
    static String literal(Value v) {
        return switch (v) {
            case Value.NullValue n -> "null";
            case Value.StringValue s -> "'" + s.value().replace("'", "''") + "'";
            default -> v.asString();
        };
    }
}
