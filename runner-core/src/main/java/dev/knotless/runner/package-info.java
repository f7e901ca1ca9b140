/**
 * What every package of runner-core may use: {@link dev.knotless.runner.ListenFailure} for the
 * servers above it, and {@link dev.knotless.runner.SideBySide}.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner;

import org.jspecify.annotations.NullMarked;
