/**
 * The seam every executor implements ({@link dev.knotless.executor.Executor}, {@link
 * dev.knotless.executor.Session}), what crosses it, and the guard every caller gets ({@link
 * dev.knotless.executor.Guarded}), the hardening record, the environment's limits and the shell
 * payload. What executors share below it is the toolkit ({@code dev.knotless.executor.toolkit}).
 */
@NullMarked
package dev.knotless.executor;

import org.jspecify.annotations.NullMarked;
