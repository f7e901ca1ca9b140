/**
 * Programs the runner brings into runs for their steps ({@link dev.knotless.plan.BroughtRuntime}):
 * the runner's own Node for GitHub's JavaScript actions, packed from the runner host with the
 * libraries it loads, so that no image has to hold it. Above the executor seam: every executor
 * gets the same files through its upload.
 */
@NullMarked
package dev.knotless.runner.run.runtime;

import org.jspecify.annotations.NullMarked;
