/**
 * What a phase of a run is, and the few things every phase shares: the environment once
 * started, why the run may stop, the log, the verdict so far. What a check is made of beside the
 * verdict is each phase's own, added up at the end.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.run.phase;

import org.jspecify.annotations.NullMarked;
