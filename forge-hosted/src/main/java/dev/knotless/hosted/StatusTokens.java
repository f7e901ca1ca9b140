package dev.knotless.hosted;

import dev.knotless.forge.Repository;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Where commit statuses go ({@code daemon --status-token-file}), one line each:
 *
 * <pre>
 * FORGE API-URL TOKEN     a forge's API and the token that may write statuses there
 * repo OWNER/NAME URL     the hosted address of a watched repository whose clone URL does not show it
 * </pre>
 *
 * <p>{@code FORGE} is {@code github}, {@code gitea}, {@code forgejo} or {@code gitlab}. A watched
 * repository gets statuses when the host of its clone URL (or of its {@code repo} line) is the
 * host of one {@code FORGE} line's API ({@code github.com} is {@code api.github.com}'s); the
 * project is that URL's path. {@link #toString} names no token.
 */
public final class StatusTokens {

    /** A forge's API and its token. {@link #toString} hides the token. */
    public record Account(ForgeKind kind, URI api, String token) {
        @Override
        public String toString() {
            return kind.wireName() + " " + api;
        }

        /** The API address without a trailing slash. */
        String base() {
            String s = api.toString();
            return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
        }
    }

    /** No tokens: no statuses. */
    public static final StatusTokens NONE = new StatusTokens(List.of(), Map.of());

    private final List<Account> accounts;
    private final Map<String, String> hostedAt;

    StatusTokens(List<Account> accounts, Map<String, String> hostedAt) {
        this.accounts = List.copyOf(accounts);
        this.hostedAt = Map.copyOf(hostedAt);
    }

    /**
     * Reads {@code file} (mode 0600 or stricter).
     *
     * @throws IllegalArgumentException naming the file and line (never a token) when a line is neither kind
     */
    public static StatusTokens read(Path file) throws IOException {
        List<Account> accounts = new ArrayList<>();
        Map<String, String> hostedAt = new HashMap<>();
        for (OwnerOnlyFile.Line line : OwnerOnlyFile.read(file)) {
            String where = file + " line " + line.number() + ": ";
            List<String> w = line.words();
            if (w.size() != 3) {
                throw new IllegalArgumentException(where + "want 'FORGE API-URL TOKEN' or 'repo OWNER/NAME URL'");
            }
            try {
                if (w.get(0).equals("repo")) {
                    Repository.checkName(w.get(1));
                    if (HostedUrl.parse(w.get(2)).isEmpty()) {
                        throw new IllegalArgumentException("'" + w.get(2) + "' is not a hosted repository's URL");
                    }
                    hostedAt.put(w.get(1), w.get(2));
                } else {
                    accounts.add(new Account(ForgeKind.parse(w.get(0)), api(w.get(1)), w.get(2)));
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + e.getMessage());
            }
        }
        if (accounts.isEmpty()) {
            throw new IllegalArgumentException(file + " holds no 'FORGE API-URL TOKEN' line");
        }
        return new StatusTokens(accounts, hostedAt);
    }

    private static URI api(String text) {
        URI uri;
        try {
            uri = URI.create(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + text + "' is not a URL");
        }
        if (uri.getScheme() == null || !List.of("https", "http").contains(uri.getScheme().toLowerCase(Locale.ROOT))
                || uri.getHost() == null || uri.getQuery() != null || uri.getFragment() != null || uri.getUserInfo() != null) {
            throw new IllegalArgumentException("the API '" + text + "' must be an http(s) URL without user, query or fragment"
                    + " (https://api.github.com, https://codeberg.org, https://gitlab.example.org)");
        }
        return uri;
    }

    /** Where {@code repo}'s statuses go; empty when no line's forge hosts it. */
    public Optional<StatusTarget> target(Repository repo) {
        Optional<HostedUrl> hosted = HostedUrl.parse(hostedAt.getOrDefault(repo.name(), repo.cloneUrl()));
        if (hosted.isEmpty()) {
            return Optional.empty();
        }
        for (Account a : accounts) {
            String apiHost = a.api().getHost().toLowerCase(Locale.ROOT);
            String host = hosted.get().host();
            if (!apiHost.equals(host) && !(a.kind() == ForgeKind.GITHUB && apiHost.equals("api.github.com") && host.equals("github.com"))) {
                continue;
            }
            String project = hosted.get().path();
            String prefix = a.api().getPath() == null ? "" : a.api().getPath().replaceAll("^/+|/+$", "");
            if (a.kind() != ForgeKind.GITHUB && !prefix.isEmpty() && project.startsWith(prefix + "/")) {
                project = project.substring(prefix.length() + 1); // a forge served under a path: https://example.org/gitlab
            }
            if (project.split("/").length < 2 || (a.kind() != ForgeKind.GITLAB && project.split("/").length != 2)) {
                continue;
            }
            return Optional.of(new StatusTarget(a, project));
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "status tokens for " + accounts;
    }
}
