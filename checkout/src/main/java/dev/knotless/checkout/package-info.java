/**
 * Per-repository git mirrors and the commit trees runs check out; knows no runs.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.checkout;

import org.jspecify.annotations.NullMarked;
