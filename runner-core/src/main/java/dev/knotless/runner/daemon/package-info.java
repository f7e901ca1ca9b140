/**
 * The long-running runner: recovery, intake, workers and the lander loop, composed by {@link dev.knotless.runner.daemon.Daemon}.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.daemon;

import org.jspecify.annotations.NullMarked;
