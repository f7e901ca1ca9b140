/**
 * The forge seam: repository records, their events, cursors and where checks are published.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.forge;

import org.jspecify.annotations.NullMarked;
