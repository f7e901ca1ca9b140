/**
 * The forge seam: repository records, their events, cursors and where checks are published; what
 * a forge is asked and what it is given. Names nothing of runner-core: a forge module depends on
 * this, never on the runner.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.forge;

import org.jspecify.annotations.NullMarked;
