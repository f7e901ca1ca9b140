package dev.knotless.plan.expression;

import org.jspecify.annotations.Nullable;

/**
 * The functions the language has everywhere, with the arguments the runner allows
 * ({@code ExpressionConstants}: 255 is its {@code Byte.MaxValue}). Names match in any case.
 */
enum Builtin {
    CONTAINS("contains", 2, 2),
    STARTS_WITH("startsWith", 2, 2),
    ENDS_WITH("endsWith", 2, 2),
    FORMAT("format", 1, 255),
    JOIN("join", 1, 2),
    TO_JSON("toJSON", 1, 1),
    FROM_JSON("fromJSON", 1, 1),
    /** {@code case(predicate, value, ..., default)}: newer than the others; an even count fails the parse. */
    CASE("case", 3, 255);

    final String spelling;
    final int min;
    final int max;

    Builtin(String spelling, int min, int max) {
        this.spelling = spelling;
        this.min = min;
        this.max = max;
    }

    static @Nullable Builtin named(String name) {
        for (Builtin b : values()) {
            if (b.spelling.equalsIgnoreCase(name)) {
                return b;
            }
        }
        return null;
    }
}
