/** Text every module writes the same way: a message on one line ({@link dev.knotless.text.OneLine}). */
@NullMarked
package dev.knotless.text;

import org.jspecify.annotations.NullMarked;
