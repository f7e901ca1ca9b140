/**
 * Test support shared by modules: fixtures, fakes and the executor contract.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.testkit;

import org.jspecify.annotations.NullMarked;
