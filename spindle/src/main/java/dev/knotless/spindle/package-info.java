/** A spindle for tangled over the daemon's runs: docs/design/spindle.md. */
@NullMarked
package dev.knotless.spindle;

import org.jspecify.annotations.NullMarked;
