/**
 * Monotonic time for deadlines and timeouts ({@link dev.knotless.time.Ticker},
 * {@link dev.knotless.time.Deadline}): a wall clock step moves none of them.
 */
@NullMarked
package dev.knotless.time;

import org.jspecify.annotations.NullMarked;
