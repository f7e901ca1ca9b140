/**
 * One workflow run on one commit, as phases and step links, ending in a recorded check.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.run;

import org.jspecify.annotations.NullMarked;
