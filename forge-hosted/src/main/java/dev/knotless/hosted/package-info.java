/**
 * Hosted forges (GitHub, Gitea and Forgejo, GitLab) as the daemon meets them: their signed
 * webhooks, which make it poll a watched repository at once ({@link ForgeHooks}), and commit
 * statuses posted back to them ({@link StatusPublisher}). docs/design/forges.md says why it is built
 * this way; docs/guide/forges.md how to set it up.
 */
@NullMarked
package dev.knotless.hosted;

import org.jspecify.annotations.NullMarked;
