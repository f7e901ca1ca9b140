/**
 * How the daemon reads forges: the {@link dev.knotless.runner.forge.Poller} asks each repository of
 * a {@link dev.knotless.forge.Forge} for its events, side by side, and backs off from the ones that
 * fail. Machinery of the runner, not the seam: a forge never sees it.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.forge;

import org.jspecify.annotations.NullMarked;
