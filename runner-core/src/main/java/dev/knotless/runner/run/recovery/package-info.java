/**
 * What a run leaves for a restarted runner, and what it goes on from: the journal of its
 * progress, written behind the run, and the resumption of a run whose environment was found again.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.run.recovery;

import org.jspecify.annotations.NullMarked;
