/**
 * Following tangled's knots: their {@code /events} streams ({@link dev.knotless.spindle.knot.KnotEvents}),
 * the cursor kept per knot ({@link dev.knotless.spindle.knot.KnotCursors}), and the pipelines they
 * announce, parsed and checked ({@link dev.knotless.spindle.knot.Pipeline}).
 */
@NullMarked
package dev.knotless.spindle.knot;

import org.jspecify.annotations.NullMarked;
