/**
 * The seam every executor implements ({@link dev.knotless.executor.Executor}, {@link
 * dev.knotless.executor.Session}), what crosses it, and what every executor shares: the guard
 * every caller gets ({@link dev.knotless.executor.Guarded}), the hardening record, the step
 * stopper, the environment's limits and the shell payload.
 */
@NullMarked
package dev.knotless.executor;

import org.jspecify.annotations.NullMarked;
