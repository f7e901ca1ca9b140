package dev.knotless.plan;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Which combination of its matrix a workflow is, after expansion ({@link Dialect#parseAll}).
 *
 * @param group the workflow's name as written: what {@code needs} names, shared by its combinations
 * @param values this combination's value of each key, in the matrix's order
 * @param maxParallel at most this many of the group's combinations run at once; 0 for no limit
 * @param failFast the first of the group to fail cancels the others
 */
public record MatrixCell(String group, Map<String, String> values, int maxParallel, boolean failFast) {

    public MatrixCell {
        Objects.requireNonNull(group, "group");
        values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** The variable a key reaches the steps as: {@code KNOTLESS_MATRIX_} and the key in capitals, '-' as '_'. */
    public static String variable(String key) {
        return "KNOTLESS_MATRIX_" + key.toUpperCase(java.util.Locale.ROOT).replace('-', '_');
    }
}
