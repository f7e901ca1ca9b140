package dev.knotless.runner.state;

import java.time.Instant;

/**
 * Where one pull request stands in a repository's merge queue, as the lander records it.
 *
 * @param state the lander's word for it ({@code waiting}, {@code testing}, {@code landed}, ...)
 */
public record QueueRow(String repo, int number, String target, String state, Instant updatedAt) {}
