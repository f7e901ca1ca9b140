/**
 * What a run leaves for people to read: its outputs, listed and sniffed, and its test reports,
 * summarised on the check. Both are read as hostile: bounded, links never followed, masked.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.run.output;

import org.jspecify.annotations.NullMarked;
