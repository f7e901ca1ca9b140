package dev.knotless.plan.expression;

import dev.knotless.plan.expression.Value.ObjectValue;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The contexts an evaluation reads ({@code github}, {@code env}, {@code steps}, ...), which the
 * host fills. Which names an expression may use is decided when it is parsed ({@link Scope}); a
 * context the scope allows that the host leaves out reads as null, as a missing key does.
 */
@FunctionalInterface
public interface Contexts {

    /** The context {@code name}, spelled as the scope declares it; null when the host has none. */
    @Nullable Value get(String name);

    /** No contexts: for expressions that read none. */
    static Contexts none() {
        return name -> null;
    }

    /** The contexts in {@code values}, by name in any case. */
    static Contexts of(Map<String, ? extends Value> values) {
        return of(Value.object(values));
    }

    /** The contexts are the object's keys, in any case. */
    static Contexts of(ObjectValue values) {
        return values::get;
    }
}
