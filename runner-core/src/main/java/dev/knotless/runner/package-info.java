/**
 * What every package of runner-core may use: {@link dev.knotless.runner.Durations}, and {@link
 * dev.knotless.runner.ListenFailure} for the servers above it.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner;

import org.jspecify.annotations.NullMarked;
