package dev.knotless.hosted;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.forge.embedded.EmbeddedForge.PullInfo;
import dev.knotless.tar.Printable;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * {@code POST /hooks/github}, {@code /hooks/gitea} (and {@code /hooks/forgejo}), {@code
 * /hooks/gitlab}: a hosted forge's push or pull-request webhook has the daemon poll that watched
 * repository now, as {@code POST /hooks/git} does (the same {@link PushHook}); a pull-request one
 * first writes the pull request's target, author and trust ({@link PullNotes}).
 *
 * <p>These take no API token (a forge cannot send one); the forge's signature over the body is the
 * authentication, checked before anything in the body is read. A bad or missing one is 401, said
 * in the log once a minute per forge ({@link RefusalLog}). A hook signed with one repository's own
 * secret ({@link WebhookSecrets}) speaks for that repository only: an event about another is 401
 * too, before anything of it is written or polled. The answers, in order of the checks: 404 when
 * no secret is configured for that forge, 413 over {@link #MAX_BODY}, 401, 503 when no daemon
 * polls, 400 when the verified body is not the event it names, 200 for a ping or an event the
 * daemon does nothing with, 404 when no watched repository has one of the URLs the event gives
 * (like {@code /hooks/git}), 401 when the key that signed it is another repository's, else 202.
 */
public final class ForgeHooks {

    /** The paths the server routes here, past its token check. */
    public static final Map<String, ForgeKind> ROUTES = Map.of(
            "/hooks/github", ForgeKind.GITHUB,
            "/hooks/gitea", ForgeKind.GITEA,
            "/hooks/forgejo", ForgeKind.GITEA,
            "/hooks/gitlab", ForgeKind.GITLAB);

    /**
     * A webhook body's bound. GitHub's push payload lists up to 2048 commits and can pass it; such
     * a push is refused (413) and found by the next regular poll.
     */
    public static final int MAX_BODY = 1 << 20;
    /** How much of a body over {@link #MAX_BODY} is read before the 413; more is not read at all. */
    static final long DRAINED = 4L << 20;

    private final WebhookSecrets secrets;
    private final WatchedRepos watched;
    private final @Nullable PushHook hook;
    private final PullNotes pulls;
    private final Consumer<String> log;
    private final RefusalLog refusals;
    private final ObjectMapper json = new ObjectMapper();

    /**
     * @param watched which watched repository a hook's URL names, polling nothing
     * @param hook what makes the daemon poll ({@code Daemon::pollSoon}); null where none polls (503)
     * @param pulls where a pull-request hook's metadata (target, author, trust) is written before
     *     the poll is asked for
     * @param log where refusals are said (rate-limited)
     */
    public ForgeHooks(WebhookSecrets secrets, WatchedRepos watched, @Nullable PushHook hook, PullNotes pulls,
            Consumer<String> log, Clock clock) {
        this.secrets = secrets;
        this.watched = watched;
        this.hook = hook;
        this.pulls = pulls;
        this.log = log;
        this.refusals = new RefusalLog(log, clock);
    }

    /** Hooks of no forge: every route answers 404. */
    public static ForgeHooks none() {
        return new ForgeHooks(WebhookSecrets.NONE, WatchedRepos.NONE, null, PullNotes.NONE, line -> {}, Clock.systemUTC());
    }

    /** Answers one webhook request to {@code kind}'s route. */
    public void handle(ForgeKind kind, Context ctx) throws IOException {
        List<WebhookSecrets.Key> keys = secrets.of(kind);
        if (keys.isEmpty()) {
            answer(ctx, 404, Map.of("error", "this daemon takes no " + kind.wireName() + " webhooks (no "
                    + kind.wireName() + " line in its --webhook-secret-file)"));
            return;
        }
        long declared = ctx.req().getContentLengthLong();
        byte[] body = declared > MAX_BODY ? null : ctx.bodyInputStream().readNBytes(MAX_BODY + 1);
        if (body == null || body.length > MAX_BODY) {
            // Read (and drop) a little more first: a client still sending when the answer comes sees a reset, not the 413.
            if (declared <= DRAINED) {
                drain(ctx.bodyInputStream(), DRAINED - (body == null ? 0 : body.length));
            }
            answer(ctx, 413, Map.of("error", "a webhook's body is at most " + MAX_BODY + " bytes"));
            return;
        }
        List<WebhookSecrets.Key> signers = keys.stream()
                .filter(k -> Signature.verify(kind, ctx::header, body, List.of(k.secret()))).toList();
        if (signers.isEmpty()) {
            refusals.refused(kind);
            answer(ctx, 401, Map.of("error", "the webhook's signature is missing or does not match"));
            return;
        }
        if (hook == null) {
            answer(ctx, 503, Map.of("error", "this server polls no repositories"));
            return;
        }
        HookEvent event = HookPayloads.parse(kind, ctx.header(eventHeader(kind, ctx)), json(ctx.header("Content-Type"), body));
        switch (event) {
            case HookEvent.Ping p -> answer(ctx, 200, Map.of("ping", "ok"));
            case HookEvent.Ignored i -> answer(ctx, 200, Map.of("ignored", "event " + i.event()));
            case HookEvent.Malformed m -> answer(ctx, 400, Map.of("error", m.why()));
            case HookEvent.Push p -> {
                if (signedFor(ctx, kind, signers, p.urls())) {
                    poll(ctx, p.urls(), "push", p.ref(), p.commit());
                }
            }
            case HookEvent.PullRequest pr -> {
                if (signedFor(ctx, kind, signers, pr.urls())) {
                    describe(kind, pr);
                    poll(ctx, pr.urls(), "pull request" + (pr.number() > 0 ? " #" + pr.number() : ""), pr.head(), pr.commit());
                }
            }
        }
    }

    /**
     * Whether one of the keys that signed the hook may speak for the watched repository its URLs
     * name; answers 404 (no such repository) or 401 (signed with another repository's secret) when not.
     */
    private boolean signedFor(Context ctx, ForgeKind kind, List<WebhookSecrets.Key> signers, List<String> urls) throws IOException {
        for (String url : variants(urls)) {
            Optional<String> name = watched.name(url);
            if (name.isPresent()) {
                if (signers.stream().anyMatch(k -> k.signsFor(name.get()))) {
                    return true;
                }
                refusals.refused(kind);
                answer(ctx, 401, Map.of("error", "the webhook is signed with another repository's secret, not "
                        + name.get() + "'s"));
                return false;
            }
        }
        answer(ctx, 404, Map.of("error", "watched repository '" + Printable.name(urls.get(0)) + "' not found"));
        return false;
    }

    /**
     * Writes what the body says of the pull request as its metadata, before the poll that finds its
     * ref, so that poll's run has its target, author and trust. A body whose facts are unusable, or
     * metadata that cannot be written, is one log line; the poll goes ahead (the pull request then
     * runs with the metadata it has: by default untrusted).
     */
    private void describe(ForgeKind kind, HookEvent.PullRequest pr) {
        String what = kind.wireName() + " pull request" + (pr.number() > 0 ? " #" + pr.number() : "");
        switch (pr.facts()) {
            case HookEvent.PullFacts.Unusable u -> log.accept(what + ": not described: " + u.why());
            case HookEvent.PullFacts.Known k -> {
                PullInfo info = new PullInfo(k.target(), k.author(), k.trusted());
                try {
                    for (String url : variants(pr.urls())) {
                        if (pulls.describe(url, (int) pr.number(), info).isPresent()) {
                            return;
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    log.accept(what + ": not described: " + Printable.name(String.valueOf(e.getMessage())));
                }
            }
        }
    }

    private void poll(Context ctx, List<String> urls, String what, @Nullable String ref, @Nullable String commit) throws IOException {
        for (String url : variants(urls)) {
            Optional<String> name = hook.pollSoon(url);
            if (name.isPresent()) {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("repo", name.get());
                out.put("polling", "now");
                out.put("event", what);
                if (ref != null) {
                    out.put("ref", ref);
                }
                if (commit != null) {
                    out.put("commit", commit);
                }
                answer(ctx, 202, out);
                return;
            }
        }
        answer(ctx, 404, Map.of("error", "watched repository '" + Printable.name(urls.get(0)) + "' not found"));
    }

    /** The URLs as given, then each with its {@code .git} taken off or put on: records are written either way. */
    private static Set<String> variants(List<String> urls) {
        Set<String> out = new LinkedHashSet<>(urls);
        for (String url : urls) {
            out.add(url.endsWith(".git") ? url.substring(0, url.length() - 4) : url + ".git");
        }
        return out;
    }

    private static String eventHeader(ForgeKind kind, Context ctx) {
        return switch (kind) {
            case GITHUB -> "X-GitHub-Event";
            case GITEA -> ctx.header("X-Forgejo-Event") != null ? "X-Forgejo-Event" : "X-Gitea-Event";
            case GITLAB -> "X-Gitlab-Event";
        };
    }

    /**
     * The JSON of a body: itself, or for a hook set to send a form ({@code application/x-www-form-urlencoded},
     * which GitHub and Gitea offer) its {@code payload} field. The signature is over the body as sent.
     */
    private static byte[] json(@Nullable String contentType, byte[] body) {
        if (contentType == null || !contentType.toLowerCase(java.util.Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
            return body;
        }
        for (String pair : new String(body, StandardCharsets.UTF_8).split("&")) {
            if (pair.startsWith("payload=")) {
                try {
                    return URLDecoder.decode(pair.substring(8), StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
                } catch (IllegalArgumentException e) {
                    return new byte[0];
                }
            }
        }
        return new byte[0];
    }

    private void answer(Context ctx, int status, Map<String, ?> body) {
        try {
            ctx.status(status).contentType("application/json").result(json.writeValueAsBytes(body));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void drain(java.io.InputStream in, long max) throws IOException {
        byte[] buffer = new byte[64 * 1024];
        long left = max;
        int n;
        while (left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) > 0) {
            left -= n;
        }
    }
}
