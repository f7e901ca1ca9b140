/**
 * Workflow files, read strictly into {@link dev.knotless.plan.Workflow}s: the plan of the runs a
 * commit makes, which everything above this module carries out.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.plan;

import org.jspecify.annotations.NullMarked;
