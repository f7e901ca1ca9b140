/**
 * Starting a run's environment: what the executor is asked for (the request fitted to the
 * runner's ceilings, the image, the services), the reasons an environment cannot be had, and the
 * services' logs at the end.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.run.environment;

import org.jspecify.annotations.NullMarked;
