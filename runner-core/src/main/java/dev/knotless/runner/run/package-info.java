/**
 * One workflow run on one commit, ending in a recorded check: {@link dev.knotless.runner.run.Run}
 * lists its phases in order and runs them. Its parts are packages of their own, each using only
 * the parts below it (PackageOrderTest): the phases ({@code step}, {@code environment},
 * {@code transfer}, {@code output}) use {@code phase}, and the steps {@code recovery} too; all of
 * them use {@code record}, and everything uses {@code request}.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.run;

import org.jspecify.annotations.NullMarked;
