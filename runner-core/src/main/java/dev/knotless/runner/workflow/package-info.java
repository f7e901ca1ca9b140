/**
 * Workflow files, read strictly into {@link dev.knotless.runner.workflow.Workflow}s.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.workflow;

import org.jspecify.annotations.NullMarked;
