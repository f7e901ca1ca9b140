/**
 * What a forge that serves HTTP (the spindle) shares with the daemon's own HTTP server: saying in
 * one line why a server could not start. Apart from the seam: it is no part of what a forge is.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.forge.listen;

import org.jspecify.annotations.NullMarked;
