/**
 * Monotonic time for deadlines and timeouts ({@link dev.knotless.time.Ticker},
 * {@link dev.knotless.time.Deadline}): a wall clock step moves none of them. And durations as
 * people write them ({@link dev.knotless.time.Durations}), shared by workflow files, command line
 * options and log lines.
 */
@NullMarked
package dev.knotless.time;

import org.jspecify.annotations.NullMarked;
