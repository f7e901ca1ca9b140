package dev.knotless.cli;

import dev.knotless.forge.CheckPublisher;
import dev.knotless.forge.Forge;
import dev.knotless.hosted.ForgeHooks;
import dev.knotless.hosted.PullConfirmation;
import dev.knotless.hosted.PullNotes;
import dev.knotless.hosted.PushHook;
import dev.knotless.hosted.StatusPublisher;
import dev.knotless.hosted.StatusTokens;
import dev.knotless.hosted.WatchedRepos;
import dev.knotless.hosted.WebhookSecrets;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** The daemon and hosted forges (docs/guide/forges.md): their webhooks in, commit statuses out. */
final class ForgeOptions {

    @Option(names = "--webhook-secret-file", paramLabel = "FILE",
            description = "Take signed webhooks at /hooks/github, /hooks/gitea (Forgejo too) and /hooks/gitlab: one"
                    + " 'FORGE SECRET' a line (github, gitea, forgejo or gitlab; mode 0600). Needs --listen.")
    @Nullable Path webhookSecretFile;

    @Option(names = "--status-token-file", paramLabel = "FILE",
            description = "Post checks as commit statuses: one 'FORGE API-URL TOKEN' a line, and 'repo OWNER/NAME URL'"
                    + " for a repository whose clone URL does not name its forge (mode 0600).")
    @Nullable Path statusTokenFile;

    @Option(names = "--status-page-url", paramLabel = "URL",
            description = "The status page as people reach it; commit statuses link to their run there.")
    @Nullable String statusPageUrl;

    /** The webhook routes' handler; one line of error for a file that cannot be used or no {@code --listen}. */
    ForgeHooks hooks(boolean listening, WatchedRepos watched, PushHook pollSoon, PullNotes pulls, Consumer<String> log)
            throws IOException {
        if (webhookSecretFile == null) {
            return ForgeHooks.none();
        }
        if (!listening) {
            throw new IllegalArgumentException("--webhook-secret-file needs --listen: webhooks come to the daemon's HTTP server");
        }
        WebhookSecrets secrets = WebhookSecrets.read(webhookSecretFile);
        for (var forge : secrets.forgeWide()) {
            log.accept("webhooks: " + webhookSecretFile + " has a forge-wide " + forge.wireName() + " secret: whoever holds it"
                    + " speaks for every watched " + forge.wireName() + " repository; give each repository its own"
                    + " ('" + forge.wireName() + " OWNER/NAME SECRET')");
        }
        return new ForgeHooks(secrets, watched, pollSoon, pulls, log, Clock.systemUTC());
    }

    /** Who asks a hosted forge's API about a pull request a hook calls trusted: nobody without {@code --status-token-file}. */
    PullConfirmation confirmation() throws IOException {
        return statusTokenFile == null ? PullConfirmation.NONE
                : new PullConfirmation(StatusTokens.read(statusTokenFile), new okhttp3.OkHttpClient());
    }

    /** The commit-status publisher, or null without {@code --status-token-file}. */
    @Nullable StatusPublisher statuses(Forge forge, Consumer<String> log) throws IOException {
        if (statusTokenFile == null) {
            if (statusPageUrl != null) {
                throw new IllegalArgumentException("--status-page-url is for commit statuses: give --status-token-file too");
            }
            return null;
        }
        if (statusPageUrl != null) {
            URI page = URI.create(statusPageUrl);
            if (page.getScheme() == null || !page.getScheme().matches("https?") || page.getHost() == null) {
                throw new IllegalArgumentException("--status-page-url " + statusPageUrl + ": give an http(s) URL");
            }
        }
        return new StatusPublisher(StatusTokens.read(statusTokenFile), forge, statusPageUrl, log, StatusPublisher.Retry.DEFAULT,
                StatusPublisher.client());
    }

    /** The forge's own publisher and, when there is one, the statuses. */
    static CheckPublisher publishers(Forge forge, @Nullable StatusPublisher statuses) {
        return statuses == null ? forge.publisher() : CheckPublisher.all(java.util.List.of(forge.publisher(), statuses));
    }
}
