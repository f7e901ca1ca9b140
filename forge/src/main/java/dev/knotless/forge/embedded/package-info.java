/**
 * The embedded forge: repository records kept as files on the runner host, events found by {@code
 * git ls-remote}. Apart from the seam ({@code dev.knotless.forge}) because it is one forge, not
 * what every forge is; the ATProto forge builds on it.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.forge.embedded;

import org.jspecify.annotations.NullMarked;
