/**
 * Everything the runner writes or tells about a run: the check (always file, state row,
 * publisher, in that order, and never left running), the log, the masking every sink goes
 * through, and the listeners told as the run goes.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.run.record;

import org.jspecify.annotations.NullMarked;
