/**
 * The daemon's HTTP face: the runs API, the status page, live output over server-sent events,
 * Prometheus metrics and the health check, over what {@code runner-core} and {@code checks} hold.
 *
 * <p>Null-safety: {@link org.jspecify.annotations.NullMarked}; what may be null says
 * {@link org.jspecify.annotations.Nullable} (the API's optional fields and query parameters).
 */
@NullMarked
package dev.knotless.http;

import org.jspecify.annotations.NullMarked;
