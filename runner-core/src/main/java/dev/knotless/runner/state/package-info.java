/**
 * The runner's durable state: one SQLite database, one class per table; and what an operator
 * sets per repository beside its secrets ({@link RepositorySettings}), a file each.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.runner.state;

import org.jspecify.annotations.NullMarked;
