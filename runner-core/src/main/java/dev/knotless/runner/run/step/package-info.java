/**
 * The steps of a run: each when its condition holds, through a chain of links that each do one
 * thing around the rest (announce, grant notice, refusal; then for each attempt: journal, passed
 * notice, following a resumed step, what the step hands back, leftover cleanup, masked output, its
 * workflow commands) and end in the step run now. How a step hands values back is {@code protocol}'s.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.run.step;

import org.jspecify.annotations.NullMarked;
