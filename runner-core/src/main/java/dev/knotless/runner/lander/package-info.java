/**
 * The merge-queue lander: batches, bisection, landing without force.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.lander;

import org.jspecify.annotations.NullMarked;
