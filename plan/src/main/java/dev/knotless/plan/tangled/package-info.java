/**
 * Tangled's dialect: the workflows of a tangled pipeline, which a knot sends to its spindle.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.plan.tangled;

import org.jspecify.annotations.NullMarked;
