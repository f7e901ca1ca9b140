/**
 * Secrets for steps: the encrypted store, which secrets a run is granted, and the masker that keeps
 * them out of logs. The shell payload that carries them to a step is the executor seam's
 * ({@code dev.knotless.executor.ShellPayload}).
 *
 * <p>Null-safety: no method accepts or returns {@code null}; absence is an {@link
 * java.util.Optional} or an empty collection ({@link org.jspecify.annotations.NullMarked}).
 *
 * <p>Public API: {@link dev.knotless.secrets.Secret}, {@link dev.knotless.secrets.SecretStore},
 * {@link dev.knotless.secrets.SecretStoreException}, {@link dev.knotless.secrets.Grants}, {@link
 * dev.knotless.secrets.Masker} and {@link
 * dev.knotless.secrets.MaskingSink}. Everything else is package-private machinery.
 */
@NullMarked
package dev.knotless.secrets;

import org.jspecify.annotations.NullMarked;
