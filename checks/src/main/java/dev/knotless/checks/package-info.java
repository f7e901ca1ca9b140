/**
 * The check record, its JSON form and its storage on the runner host.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.checks;

import org.jspecify.annotations.NullMarked;
