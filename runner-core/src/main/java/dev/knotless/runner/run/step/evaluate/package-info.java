/**
 * What of a step the run works out as it is about to start ({@link dev.knotless.plan.Computed},
 * {@link dev.knotless.plan.Deferred}): the plan's expressions evaluated over the trees of contexts
 * their front-end built ({@link dev.knotless.plan.RunValue}), whose facts this package fills in
 * from the run's request and from the steps before. Nothing here names a dialect.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.run.step.evaluate;

import org.jspecify.annotations.NullMarked;
