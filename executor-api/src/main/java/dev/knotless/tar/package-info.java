/**
 * Tar streams for transfers: a directory packed as it is ({@link dev.knotless.tar.DirectoryTar}),
 * extraction that never writes outside its target ({@link dev.knotless.tar.TarExtractor}), and
 * byte and time bounds ({@link dev.knotless.tar.Bounded}). Used above the seam, so no executor
 * decides what is safe to write on the runner host.
 */
@NullMarked
package dev.knotless.tar;

import org.jspecify.annotations.NullMarked;
