/**
 * The list of dialects ({@link dev.knotless.plan.dialects.Dialects}): the one place above the
 * dialects' own packages that names them.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.plan.dialects;

import org.jspecify.annotations.NullMarked;
