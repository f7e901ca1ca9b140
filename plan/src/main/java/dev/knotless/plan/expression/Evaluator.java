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
import dev.knotless.plan.expression.Value.ArrayValue;
import dev.knotless.plan.expression.Value.BooleanValue;
import dev.knotless.plan.expression.Value.ObjectValue;
import dev.knotless.plan.expression.Value.StringValue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Evaluates expressions against the host's contexts and functions, as the runner does: {@code &&}
 * and {@code ||} stop at the operand that decides and give its value, a function's arguments are
 * evaluated only when it needs them, a missing property is null.
 *
 * <p>An evaluation may hold at most {@link #memoryLimit()} bytes of results at once, counted as
 * the runner counts them (a string 26 bytes and 2 a character, another result 24, a filtered array
 * 8 an item): {@code format} and {@code join} can otherwise grow a short expression's result
 * exponentially. A result's operands are let go once it is made, so only the results on the way
 * from the root to the node being evaluated add up.
 *
 * <p>The walk recurses once a level; a parsed tree is at most 50 levels deep.
 */
public final class Evaluator {

    /**
     * What GitHub's runner gives a workflow's expressions (its template evaluator's 10 MiB); its
     * expression engine alone defaults to 1 MiB.
     */
    public static final long DEFAULT_MEMORY_LIMIT = 10L * 1024 * 1024;

    private static final int STRING_OVERHEAD = 26;
    private static final int OBJECT_SIZE = 24;
    private static final int REFERENCE_SIZE = 8;

    private final Contexts contexts;
    private final Functions functions;
    private final long memoryLimit;

    public Evaluator(Contexts contexts, Functions functions) {
        this(contexts, functions, DEFAULT_MEMORY_LIMIT);
    }

    public Evaluator(Contexts contexts, Functions functions, long memoryLimit) {
        this.contexts = Objects.requireNonNull(contexts, "contexts");
        this.functions = Objects.requireNonNull(functions, "functions");
        if (memoryLimit < OBJECT_SIZE) {
            throw new IllegalArgumentException("a memory limit of " + memoryLimit + " bytes holds no result");
        }
        this.memoryLimit = memoryLimit;
    }

    public long memoryLimit() {
        return memoryLimit;
    }

    public Value evaluate(Expression expression) throws ExpressionException {
        return new Run().eval(expression);
    }

    /** One evaluation's state: the memory held, and which arrays are filtered. */
    private final class Run {

        private long held;
        /**
         * Arrays made by {@code .*}: a further index applies to their items. Marked by identity, so
         * the mark follows the array through {@code &&}, {@code ||} and parentheses, as the runner's
         * {@code FilteredArray} type does, and never outlives the evaluation.
         */
        private final Set<ArrayValue> filtered = Collections.newSetFromMap(new IdentityHashMap<>());

        Value eval(Expression e) throws ExpressionException {
            long before = held;
            Value v = core(e);
            held = before + size(v);
            if (held > memoryLimit) {
                throw tooLarge(e.offset());
            }
            return v;
        }

        private Value core(Expression e) throws ExpressionException {
            return switch (e) {
                case Literal l -> l.value();
                case Context c -> {
                    Value v = contexts.get(c.name());
                    yield v == null ? Value.NULL : v;
                }
                case Index i -> index(i);
                case Filter f -> filter(f);
                case Not n -> Value.of(!eval(n.operand()).isTruthy());
                case Compare c -> compare(c);
                case And a -> {
                    Value v = Value.NULL;
                    for (Expression operand : a.operands()) {
                        v = eval(operand);
                        if (!v.isTruthy()) {
                            break;
                        }
                    }
                    yield v;
                }
                case Or o -> {
                    Value v = Value.NULL;
                    for (Expression operand : o.operands()) {
                        v = eval(operand);
                        if (v.isTruthy()) {
                            break;
                        }
                    }
                    yield v;
                }
                case Call c -> call(c);
            };
        }

        private Value compare(Compare c) throws ExpressionException {
            Value l = eval(c.left());
            Value r = eval(c.right());
            return Value.of(switch (c.operator()) {
                case EQ -> Coercion.equal(l, r);
                case NE -> !Coercion.equal(l, r);
                case LT -> Coercion.less(l, r);
                case LE -> Coercion.equal(l, r) || Coercion.less(l, r);
                case GT -> Coercion.greater(l, r);
                case GE -> Coercion.equal(l, r) || Coercion.greater(l, r);
            });
        }

        /**
         * An object by key (the key's text, any case), an array by position (the key as a number,
         * floored; negative, NaN or past the end is null), anything else null with the key not
         * evaluated. On a filtered array the key applies to each item, and the items that have it
         * make a new filtered array.
         */
        private Value index(Index i) throws ExpressionException {
            Value target = eval(i.target());
            if (target instanceof ArrayValue a && filtered.contains(a)) {
                Value key = eval(i.key());
                List<Value> out = new ArrayList<>();
                for (Value item : a.items()) {
                    boolean collection = item instanceof ObjectValue || item instanceof ArrayValue;
                    @Nullable Value found = collection ? lookup(item, key) : null;
                    if (found != null) {
                        out.add(found);
                        checkFiltered(out.size(), i.offset());
                    }
                }
                return filteredArray(out);
            }
            if (target instanceof ObjectValue || target instanceof ArrayValue) {
                @Nullable Value found = lookup(target, eval(i.key()));
                return found == null ? Value.NULL : found;
            }
            return Value.NULL;
        }

        private Value filter(Filter f) throws ExpressionException {
            Value target = eval(f.target());
            List<Value> out = new ArrayList<>();
            if (target instanceof ArrayValue a && filtered.contains(a)) {
                for (Value item : a.items()) {
                    if (item instanceof ObjectValue o) {
                        out.addAll(o.values());
                    } else if (item instanceof ArrayValue inner) {
                        out.addAll(inner.items());
                    }
                    checkFiltered(out.size(), f.offset());
                }
            } else if (target instanceof ObjectValue o) {
                out.addAll(o.values());
            } else if (target instanceof ArrayValue a) {
                out.addAll(a.items());
            }
            checkFiltered(out.size(), f.offset());
            return filteredArray(out);
        }

        private ArrayValue filteredArray(List<Value> items) {
            ArrayValue a = Value.array(items);
            filtered.add(a);
            return a;
        }

        private Value call(Call c) throws ExpressionException {
            Builtin builtin = Builtin.named(c.name());
            if (builtin == null) {
                List<Value> arguments = new ArrayList<>(c.arguments().size());
                for (Expression a : c.arguments()) {
                    arguments.add(eval(a));
                }
                try {
                    return Objects.requireNonNull(functions.call(c.name(), Collections.unmodifiableList(arguments)),
                            c.name());
                } catch (ExpressionException e) {
                    throw e.offset() < 0 ? e.at(c.offset()) : e;
                }
            }
            List<Expression> args = c.arguments();
            return switch (builtin) {
                case CONTAINS -> contains(args);
                case STARTS_WITH, ENDS_WITH -> {
                    Value left = eval(args.get(0));
                    if (!left.isPrimitive()) {
                        yield Value.FALSE;
                    }
                    Value right = eval(args.get(1));
                    if (!right.isPrimitive()) {
                        yield Value.FALSE;
                    }
                    String s = Chars.fold(left.asString());
                    String part = Chars.fold(right.asString());
                    yield Value.of(builtin == Builtin.STARTS_WITH ? s.startsWith(part) : s.endsWith(part));
                }
                case FORMAT -> format(c);
                case JOIN -> join(c);
                case TO_JSON -> {
                    String json = Json.write(eval(args.get(0)), maxChars());
                    if (json == null) {
                        throw tooLarge(c.offset());
                    }
                    yield Value.of(json);
                }
                case FROM_JSON -> {
                    try {
                        yield Json.parse(eval(args.get(0)).asString());
                    } catch (ExpressionException e) {
                        throw new ExpressionException("fromJSON: " + e.problem(), c.offset());
                    }
                }
                case CASE -> choose(c);
            };
        }

        /**
         * Text in text, ignoring case, when both are primitives (as their text); an item loosely
         * equal in an array. The second argument is not evaluated when the first decides.
         */
        private Value contains(List<Expression> args) throws ExpressionException {
            Value haystack = eval(args.get(0));
            if (haystack.isPrimitive()) {
                Value needle = eval(args.get(1));
                return Value.of(needle.isPrimitive()
                        && Chars.fold(haystack.asString()).contains(Chars.fold(needle.asString())));
            }
            if (haystack instanceof ArrayValue a && !a.items().isEmpty()) {
                Value needle = eval(args.get(1));
                for (Value item : a.items()) {
                    if (Coercion.equal(needle, item)) {
                        return Value.TRUE;
                    }
                }
            }
            return Value.FALSE;
        }

        /** An array's items as text with the separator (',' unless a primitive is given); a primitive as text. */
        private Value join(Call c) throws ExpressionException {
            Value items = eval(c.arguments().get(0));
            if (items instanceof ArrayValue a && !a.items().isEmpty()) {
                String separator = ",";
                if (a.items().size() > 1 && c.arguments().size() > 1) {
                    Value s = eval(c.arguments().get(1));
                    if (s.isPrimitive()) {
                        separator = s.asString();
                    }
                }
                StringBuilder out = new StringBuilder();
                for (int i = 0; i < a.items().size(); i++) {
                    if (i > 0) {
                        out.append(separator);
                    }
                    out.append(a.items().get(i).asString());
                    if (out.length() > maxChars()) {
                        throw tooLarge(c.offset());
                    }
                }
                return Value.of(out.toString());
            }
            return Value.of(items.isPrimitive() ? items.asString() : "");
        }

        /**
         * {@code {N}} is argument N as text, <code>{{</code> and <code>}}</code> are braces. The whole format
         * is checked before any argument is evaluated, and only the arguments it names are, each
         * once. Errors as the runner's: a lone brace, an index past the arguments (or over 255), a
         * format specifier ({@code {0:x}}; an empty one, {@code {0:}}, is allowed).
         */
        private Value format(Call c) throws ExpressionException {
            String f = eval(c.arguments().get(0)).asString();
            List<Object> segments = FormatString.segments(f, c.arguments().size() - 1, c);
            @Nullable Value[] evaluated = new Value[c.arguments().size() - 1];
            StringBuilder out = new StringBuilder();
            for (Object segment : segments) {
                if (segment instanceof FormatString.Placeholder p) {
                    if (evaluated[p.argument()] == null) {
                        evaluated[p.argument()] = eval(c.arguments().get(p.argument() + 1));
                    }
                    if (!p.specifiers().isEmpty()) {
                        throw new ExpressionException("format: the format specifiers " + Chars.quote(p.specifiers())
                                + " are not valid for " + aKind(evaluated[p.argument()]), c.offset());
                    }
                    out.append(evaluated[p.argument()].asString());
                } else {
                    out.append((String) segment);
                }
                if (out.length() > maxChars()) {
                    throw tooLarge(c.offset());
                }
            }
            return Value.of(out.toString());
        }

        /** {@code case(p1, v1, p2, v2, ..., default)}: the value of the first true predicate; each must be a boolean. */
        private Value choose(Call c) throws ExpressionException {
            List<Expression> args = c.arguments();
            for (int i = 0; i + 1 < args.size(); i += 2) {
                Value predicate = eval(args.get(i));
                if (!(predicate instanceof BooleanValue b)) {
                    throw new ExpressionException("case: predicate " + (i / 2 + 1) + " must be a Boolean, was "
                            + aKind(predicate), args.get(i).offset());
                }
                if (b.value()) {
                    return eval(args.get(i + 1));
                }
            }
            return eval(args.get(args.size() - 1));
        }

        private void checkFiltered(int items, int offset) throws ExpressionException {
            if (OBJECT_SIZE + (long) items * REFERENCE_SIZE > memoryLimit) {
                throw tooLarge(offset);
            }
        }

        private long size(Value v) {
            if (v instanceof StringValue s) {
                return STRING_OVERHEAD + 2L * s.value().length();
            }
            if (v instanceof ArrayValue a && filtered.contains(a)) {
                return OBJECT_SIZE + (long) REFERENCE_SIZE * a.items().size();
            }
            return OBJECT_SIZE;
        }

        private long maxChars() {
            return (memoryLimit - STRING_OVERHEAD) / 2;
        }

        private ExpressionException tooLarge(int offset) {
            return new ExpressionException("the evaluation needs more than the " + memoryLimit
                    + " bytes of memory it may use", offset);
        }
    }

    /**
     * The item {@code key} names: an object's by the key's text (a primitive's; never an array's
     * or object's), an array's by the key as a number.
     */
    private static @Nullable Value lookup(Value collection, Value key) {
        if (collection instanceof ObjectValue o) {
            return key.isPrimitive() ? o.get(key.asString()) : null;
        }
        ArrayValue a = (ArrayValue) collection;
        double d = key.asNumber();
        if (Double.isNaN(d) || d < 0) {
            return null;
        }
        d = Math.floor(d);
        return d < a.items().size() ? a.items().get((int) d) : null;
    }

    private static String aKind(@Nullable Value v) {
        String kind = v == null ? "Null" : v.kind();
        return (kind.startsWith("A") || kind.startsWith("O") ? "an " : "a ") + kind;
    }
}
