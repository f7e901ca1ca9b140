/**
 * Our dialect, {@code .knotless/workflows/*.yaml} ({@code docs/reference/workflow.md}): its schema
 * and the readers of its parts, and {@code ${matrix.KEY}} filled in per combination. Tangled's
 * {@code engine: knotless} is this schema too ({@link dev.knotless.plan.knotless.Schema}).
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.plan.knotless;

import org.jspecify.annotations.NullMarked;
