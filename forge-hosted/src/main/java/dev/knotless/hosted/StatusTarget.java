package dev.knotless.hosted;

/** Where one repository's commit statuses go: a forge's API and the project there ({@code owner/name}, GitLab's {@code group/sub/name}). */
public record StatusTarget(StatusTokens.Account account, String project) {}
