package dev.knotless.plan.github;

import dev.knotless.plan.Computed;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * A field's variables ({@code env}, a local action's inputs): each decided now ({@link
 * Computed.Text}) or by the run; and the secrets they read, which the steps that get them are
 * granted.
 */
record Variables(Map<String, Computed> values, Set<String> secrets) {

    static final Variables NONE = new Variables(Map.of(), Set.of());

    Variables {
        values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        secrets = Collections.unmodifiableSet(new LinkedHashSet<>(secrets));
    }

    /** These with {@code over}'s on top, a name given again taking its new value. */
    Variables and(Variables over) {
        Map<String, Computed> all = new LinkedHashMap<>(values);
        all.putAll(over.values);
        Set<String> read = new LinkedHashSet<>(secrets);
        read.addAll(over.secrets);
        return new Variables(all, read);
    }

    /** The values decided now. */
    Map<String, String> known() {
        Map<String, String> known = new LinkedHashMap<>();
        values.forEach((name, value) -> {
            if (value instanceof Computed.Text t) {
                known.put(name, t.value());
            }
        });
        return known;
    }

    /** The values left to the run. */
    Map<String, Computed> computed() {
        Map<String, Computed> computed = new LinkedHashMap<>();
        values.forEach((name, value) -> {
            if (!(value instanceof Computed.Text)) {
                computed.put(name, value);
            }
        });
        return computed;
    }
}
