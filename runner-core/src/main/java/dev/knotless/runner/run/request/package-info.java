/**
 * What a run is asked to do and within what bounds: the request, the runner's limits and
 * ceilings, the run's one deadline and its cancellation. Every other part of a run reads these;
 * this part reads none of them.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.run.request;

import org.jspecify.annotations.NullMarked;
