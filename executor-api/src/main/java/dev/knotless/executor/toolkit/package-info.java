/**
 * What executors share below the seam, and nothing above it may use: the step that outlives its
 * exec ({@link dev.knotless.executor.toolkit.DetachedStep}, {@link
 * dev.knotless.executor.toolkit.StepStreams}), the next step's exec opened while the current one
 * runs ({@link dev.knotless.executor.toolkit.OpenedAhead}), environments started ahead ({@link
 * dev.knotless.executor.toolkit.WarmPool}), the wait for services' ports ({@link
 * dev.knotless.executor.toolkit.ServiceReadiness}), a step's stop and kill grace ({@link
 * dev.knotless.executor.toolkit.StepStopper}), the one label form of a runner id ({@link
 * dev.knotless.executor.toolkit.RunnerLabel}) and block streams. Kept apart from the seam so a
 * newcomer reads the seam ({@code dev.knotless.executor}) alone; runner-core and the libraries
 * never name it ({@code ArchitectureTest}).
 */
@NullMarked
package dev.knotless.executor.toolkit;

import org.jspecify.annotations.NullMarked;
