/**
 * The {@code knotless-run} command: picocli commands, their output, and the wiring of executors,
 * stores and the daemon (the composition root).
 *
 * <p>Null-safety: {@link org.jspecify.annotations.NullMarked}; an optional option without a
 * default is {@link org.jspecify.annotations.Nullable} (picocli leaves it unset).
 */
@NullMarked
package dev.knotless.cli;

import org.jspecify.annotations.NullMarked;
