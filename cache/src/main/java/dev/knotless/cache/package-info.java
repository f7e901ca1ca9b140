/**
 * Cache layers on the runner host: a compressed base layer per repository, cached path and ref;
 * upper layers streamed out of a run, then promoted, kept or dropped; least-recently-used
 * eviction under a size budget.
 *
 * <p>Null-safety: no method accepts or returns {@code null}; absence is an {@link
 * java.util.Optional} or an empty collection.
 *
 * <p>Public API: {@link dev.knotless.cache.CacheStore}, {@link dev.knotless.cache.CacheKey},
 * {@link dev.knotless.cache.Layer}, {@link dev.knotless.cache.Upper}, {@link
 * dev.knotless.cache.Entry}, {@link dev.knotless.cache.Promotion} and {@link
 * dev.knotless.cache.PruneReport}. Everything else is package-private machinery.
 */
@NullMarked
package dev.knotless.cache;

import org.jspecify.annotations.NullMarked;
