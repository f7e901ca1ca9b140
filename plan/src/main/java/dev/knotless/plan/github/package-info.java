/**
 * GitHub Actions' workflows ({@code .github/workflows}, and Forgejo's and Gitea's directories),
 * read into the plan: each job, and each combination of its matrix, is one run. What is
 * supported, form by form, is {@code docs/reference/github-actions.md}; why it is built so,
 * {@code docs/design/github-actions.md}. Every key this reader does not carry out fails closed at
 * its line, and every problem of a file is reported, not the first only.
 *
 * <p>Null-marked: a type not written {@code @Nullable} never holds null.
 */
@NullMarked
package dev.knotless.plan.github;

import org.jspecify.annotations.NullMarked;
