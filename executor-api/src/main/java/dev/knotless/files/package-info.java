/**
 * Files only the runner's own user may read, written whole ({@link dev.knotless.files.OwnerOnlyFiles}):
 * the keys, secrets, records and cursors every module keeps in the state directory.
 */
@NullMarked
package dev.knotless.files;

import org.jspecify.annotations.NullMarked;
