package dev.knotless.plan.expression;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A value of the expression language: what a context holds, a literal is and an expression gives.
 * The six kinds of GitHub's runner; its conversions are methods here ({@link #isTruthy()}, {@link
 * #asString()}, {@link #asNumber()}), its loose comparisons are the operators' (evaluation only).
 *
 * <p>Java's {@code equals} compares contents, for hosts and tests; the language's {@code ==} holds
 * an array or object equal only to the same instance, as the runner does.
 */
public sealed interface Value
        permits Value.NullValue, Value.BooleanValue, Value.NumberValue, Value.StringValue, Value.ArrayValue,
        Value.ObjectValue {

    NullValue NULL = new NullValue();
    BooleanValue TRUE = new BooleanValue(true);
    BooleanValue FALSE = new BooleanValue(false);

    static BooleanValue of(boolean value) {
        return value ? TRUE : FALSE;
    }

    static NumberValue of(double value) {
        return new NumberValue(value);
    }

    static StringValue of(String value) {
        return new StringValue(value);
    }

    static ArrayValue array(Value... items) {
        return new ArrayValue(List.of(items));
    }

    static ArrayValue array(List<? extends Value> items) {
        return new ArrayValue(List.<Value>copyOf(items));
    }

    /** In the map's order; keys that differ only in case keep the first key and the last value. */
    static ObjectValue object(Map<String, ? extends Value> entries) {
        ObjectValue.Builder b = ObjectValue.builder();
        entries.forEach(b::put);
        return b.build();
    }

    /** False for false, 0, -0, NaN, '' and null; arrays and objects are truthy, empty ones too. */
    default boolean isTruthy() {
        return switch (this) {
            case NullValue n -> false;
            case BooleanValue b -> b.value();
            case NumberValue n -> n.value() != 0 && !Double.isNaN(n.value());
            case StringValue s -> !s.value().isEmpty();
            case ArrayValue a -> true;
            case ObjectValue o -> true;
        };
    }

    /** Null, boolean, number or string: what converts to text and number, and indexes by value. */
    default boolean isPrimitive() {
        return !(this instanceof ArrayValue) && !(this instanceof ObjectValue);
    }

    /**
     * The runner's conversion to text, as {@code format} and a template use it: null is empty,
     * booleans {@code true}/{@code false}, numbers with up to 15 significant digits (integral ones
     * without a point, {@code 1E+15} from there and below {@code 0.0001}, -0 as {@code 0}, {@code
     * NaN}, {@code Infinity}), arrays {@code Array} and objects {@code Object}.
     */
    default String asString() {
        return switch (this) {
            case NullValue n -> "";
            case BooleanValue b -> b.value() ? "true" : "false";
            case NumberValue n -> Numbers.format(n.value());
            case StringValue s -> s.value();
            case ArrayValue a -> "Array";
            case ObjectValue o -> "Object";
        };
    }

    /**
     * The runner's conversion to a number for comparisons and indexes (JavaScript's {@code
     * Number()}): null 0, booleans 1 and 0, a string trimmed and read as a decimal, {@code 0x} hex
     * or {@code 0o} octal number ('' is 0, anything else NaN), arrays and objects NaN.
     */
    default double asNumber() {
        return switch (this) {
            case NullValue n -> 0;
            case BooleanValue b -> b.value() ? 1 : 0;
            case NumberValue n -> n.value();
            case StringValue s -> Numbers.parse(s.value());
            case ArrayValue a -> Double.NaN;
            case ObjectValue o -> Double.NaN;
        };
    }

    /** The kind's name as the runner spells it in messages: Null, Boolean, Number, String, Array, Object. */
    default String kind() {
        return switch (this) {
            case NullValue n -> "Null";
            case BooleanValue b -> "Boolean";
            case NumberValue n -> "Number";
            case StringValue s -> "String";
            case ArrayValue a -> "Array";
            case ObjectValue o -> "Object";
        };
    }

    /** The one null; use {@link #NULL}. */
    record NullValue() implements Value {
    }

    record BooleanValue(boolean value) implements Value {
    }

    /** Every number is a double, as in the runner: {@code 0xff}, {@code 1e3} and {@code 7} alike. */
    record NumberValue(double value) implements Value {
    }

    record StringValue(String value) implements Value {
        public StringValue {
            Objects.requireNonNull(value, "value");
        }
    }

    record ArrayValue(List<Value> items) implements Value {
        public ArrayValue {
            items = List.copyOf(items);
        }
    }

    /**
     * A mapping in its insertion order. Keys are looked up ignoring case, as the runner's
     * dictionaries are, and keep the spelling they were first given.
     */
    final class ObjectValue implements Value {

        private final List<String> keys;
        private final List<Value> values;
        private final Map<String, Integer> index;

        private ObjectValue(List<String> keys, List<Value> values, Map<String, Integer> index) {
            this.keys = Collections.unmodifiableList(keys);
            this.values = Collections.unmodifiableList(values);
            this.index = index;
        }

        public static Builder builder() {
            return new Builder();
        }

        /** The value under {@code key}, whatever its case; null when there is none. */
        public @Nullable Value get(String key) {
            Integer i = index.get(Chars.fold(key));
            return i == null ? null : values.get(i);
        }

        public int size() {
            return keys.size();
        }

        /** The keys as first spelled, in order. */
        public List<String> keys() {
            return keys;
        }

        /** The values in the keys' order. */
        public List<Value> values() {
            return values;
        }

        /** A copy keyed as spelled; its {@code get} is case-sensitive, unlike {@link #get}. */
        public Map<String, Value> asMap() {
            Map<String, Value> m = new LinkedHashMap<>();
            for (int i = 0; i < keys.size(); i++) {
                m.put(keys.get(i), values.get(i));
            }
            return Collections.unmodifiableMap(m);
        }

        @Override
        public boolean equals(@Nullable Object o) {
            return o instanceof ObjectValue other && keys.equals(other.keys) && values.equals(other.values);
        }

        @Override
        public int hashCode() {
            return 31 * keys.hashCode() + values.hashCode();
        }

        @Override
        public String toString() {
            return "ObjectValue" + asMap();
        }

        /** Builds an {@link ObjectValue}; not thread-safe, and spent by {@link #build()}. */
        public static final class Builder {

            private List<String> keys = new ArrayList<>();
            private List<Value> values = new ArrayList<>();
            private Map<String, Integer> index = new HashMap<>();

            private Builder() {
            }

            /**
             * Adds {@code key}; a key already there in any case keeps its spelling and place and
             * takes the new value, as the runner's {@code fromJSON} keeps the last of duplicates.
             */
            public Builder put(String key, Value value) {
                Objects.requireNonNull(key, "key");
                Objects.requireNonNull(value, "value");
                Integer i = index.putIfAbsent(Chars.fold(key), keys.size());
                if (i == null) {
                    keys.add(key);
                    values.add(value);
                } else {
                    values.set(i, value);
                }
                return this;
            }

            public ObjectValue build() {
                ObjectValue built = new ObjectValue(keys, values, index);
                keys = new ArrayList<>();
                values = new ArrayList<>();
                index = new HashMap<>();
                return built;
            }
        }
    }
}
