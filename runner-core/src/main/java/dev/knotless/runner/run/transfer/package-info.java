/**
 * What a run moves into and out of its environment as trees: the checkout and step scripts in,
 * caches and the artifacts of the runs it needs in, and its own caches and artifacts out, none of
 * them holding a value granted in the run.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.run.transfer;

import org.jspecify.annotations.NullMarked;
