/**
 * What every package of runner-core may use: {@link dev.knotless.runner.Durations}.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner;

import org.jspecify.annotations.NullMarked;
