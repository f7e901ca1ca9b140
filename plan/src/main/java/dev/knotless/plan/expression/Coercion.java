package dev.knotless.plan.expression;

import dev.knotless.plan.expression.Value.ArrayValue;
import dev.knotless.plan.expression.Value.BooleanValue;
import dev.knotless.plan.expression.Value.NullValue;
import dev.knotless.plan.expression.Value.NumberValue;
import dev.knotless.plan.expression.Value.ObjectValue;
import dev.knotless.plan.expression.Value.StringValue;

/**
 * The comparison operators' loose rules, as the runner's {@code EvaluationResult}: JavaScript's
 * abstract equality, except that strings compare ignoring case and arrays and objects are never
 * converted (equal only to themselves, never less or greater).
 */
final class Coercion {

    private Coercion() {
    }

    /**
     * Values of one kind compare as themselves. A number and a string compare as numbers; a null or
     * boolean becomes a number and the rules apply again. Other mixes are unequal and unordered.
     */
    static boolean equal(Value left, Value right) {
        Value[] pair = coerce(left, right);
        Value l = pair[0];
        Value r = pair[1];
        return switch (l) {
            case NullValue n -> r instanceof NullValue;
            case NumberValue n -> r instanceof NumberValue m && n.value() == m.value(); // NaN is unequal to all
            case StringValue s -> r instanceof StringValue t && Chars.fold(s.value()).equals(Chars.fold(t.value()));
            case BooleanValue b -> r instanceof BooleanValue c && b.value() == c.value();
            case ArrayValue a -> l == r;
            case ObjectValue o -> l == r;
        };
    }

    static boolean greater(Value left, Value right) {
        return order(left, right) > 0;
    }

    static boolean less(Value left, Value right) {
        return order(left, right) < 0;
    }

    /** Negative, positive, or 0 for equal and for unordered (NaN, arrays, objects, mixed kinds). */
    private static int order(Value left, Value right) {
        Value[] pair = coerce(left, right);
        Value l = pair[0];
        Value r = pair[1];
        if (l instanceof NumberValue n && r instanceof NumberValue m) {
            return n.value() > m.value() ? 1 : n.value() < m.value() ? -1 : 0;
        }
        if (l instanceof StringValue s && r instanceof StringValue t) {
            return Integer.signum(Chars.fold(s.value()).compareTo(Chars.fold(t.value())));
        }
        if (l instanceof BooleanValue b && r instanceof BooleanValue c) {
            return Boolean.compare(b.value(), c.value());
        }
        return 0;
    }

    private static Value[] coerce(Value left, Value right) {
        Value l = left;
        Value r = right;
        while (!sameKind(l, r)) {
            if (l instanceof NumberValue && r instanceof StringValue) {
                r = Value.of(r.asNumber());
            } else if (l instanceof StringValue && r instanceof NumberValue) {
                l = Value.of(l.asNumber());
            } else if (l instanceof BooleanValue || l instanceof NullValue) {
                l = Value.of(l.asNumber());
            } else if (r instanceof BooleanValue || r instanceof NullValue) {
                r = Value.of(r.asNumber());
            } else {
                break;
            }
        }
        return new Value[] {l, r};
    }

    private static boolean sameKind(Value l, Value r) {
        return l.getClass() == r.getClass();
    }
}
