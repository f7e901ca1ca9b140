/**
 * What every package of runner-core may use: {@link dev.knotless.runner.SideBySide}. (Saying why a
 * server cannot start, which the servers above share, is the forge module's {@code ListenFailure}.)
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner;

import org.jspecify.annotations.NullMarked;
