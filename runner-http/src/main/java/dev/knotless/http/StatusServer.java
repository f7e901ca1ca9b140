package dev.knotless.http;

import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.knotless.hosted.ForgeHooks;
import dev.knotless.forge.listen.ListenFailure;
import dev.knotless.tar.Printable;
import dev.knotless.text.OneLine;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's HTTP server (Javalin on Jetty, a virtual thread per request): the JSON API, live
 * output as Server-Sent Events, the status page, {@code /metrics} and {@code /healthz}.
 *
 * <p>Every request passes {@link ApiAccess} first: a {@code Host} the server does not answer to
 * gets 421, a request without the scope it needs 401 ({@code /healthz} and the page's own files
 * need none; they hold no run's data). docs/design/security.md says why.
 */
public final class StatusServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StatusServer.class);
    private static final String PAGE = "/dev/knotless/http/page/";
    private static final Map<String, String> PAGE_FILES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "app.js", "text/javascript; charset=utf-8",
            "ansi.js", "text/javascript; charset=utf-8",
            "style.css", "text/css; charset=utf-8");

    private final Javalin app;
    private final RunEvents events;
    private final Listen listen;

    /** A server whose API anyone on this machine may read: what tests use. */
    public StatusServer(Listen listen, ApiSources sources) {
        this(listen, sources, ApiAccess.openForReading());
    }

    public StatusServer(Listen listen, ApiSources sources, ApiAccess access) {
        this(listen, sources, access, ForgeHooks.none());
    }

    /** A server that also takes hosted forges' signed webhooks ({@code /hooks/github} and the like). */
    public StatusServer(Listen listen, ApiSources sources, ApiAccess access, ForgeHooks forgeHooks) {
        this.listen = listen;
        Gate gate = new Gate(access);
        ApiJson json = new ApiJson(JsonMapper.builder().addModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).build());
        RunsApi api = new RunsApi(sources, json);
        NodesApi nodes = new NodesApi(sources, json);
        this.events = new RunEvents(sources, api, json.mapper());
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.concurrency.useVirtualThreads = true;
            config.jetty.host = listen.host();
            config.jetty.port = listen.port();
            config.routes.before(gate::check);
            config.routes.get("/api/repos", api::repos);
            config.routes.get("/api/runs", api::runs);
            config.routes.get("/api/runs/{id}", api::run);
            config.routes.get("/api/runs/{id}/log", api::log);
            config.routes.get("/api/runs/{id}/artifacts", api::artifacts);
            config.routes.get("/api/runs/{id}/events", events::handle);
            config.routes.get("/api/runs/{id}/outputs/<name>", api::output);
            config.routes.get("/api/queue", api::queue);
            config.routes.post("/api/runs", api::queueManual);
            config.routes.post("/api/runs/{id}/rerun", api::rerun);
            config.routes.post("/api/commits/{sha}/rerun-failed", api::rerunFailed);
            config.routes.post("/api/runs/{id}/cancel", api::cancel);
            config.routes.get("/api/nodes", nodes::list);
            config.routes.post("/api/nodes/{id}/drain", nodes::drain);
            config.routes.post("/api/nodes/{id}/undrain", nodes::undrain);
            config.routes.post("/hooks/git", api::pushHook);
            ForgeHooks.ROUTES.forEach((path, forge) -> config.routes.post(path, ctx -> forgeHooks.handle(forge, ctx)));
            config.routes.get("/healthz", api::health);
            config.routes.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                    .result(sources.metrics().scrape()));
            config.routes.get("/", ctx -> page(ctx, "index.html"));
            config.routes.get("/{file}", ctx -> page(ctx, ctx.pathParam("file")));
            config.routes.exception(ApiError.class, (e, ctx) -> {
                ctx.status(e.status());
                json.send(ctx, Map.of("error", e.getMessage()));
            });
            config.routes.exception(Exception.class, (e, ctx) -> {
                LOG.warn("{} {} failed", ctx.method(), ctx.path(), e);
                ctx.status(500);
                json.send(ctx, Map.of("error", OneLine.of(e)));
            });
            config.routes.error(404, "*", ctx -> {
                String type = ctx.res().getContentType();
                if (type == null || !type.startsWith("application/json")) {
                    json.send(ctx, Map.of("error", ctx.path() + " not found"));
                }
            });
        });
    }

    /** Binds and serves; one line of error when the address is taken or not this machine's. */
    public StatusServer start() {
        try {
            app.start();
        } catch (RuntimeException e) {
            throw ListenFailure.of("cannot listen on " + listen, e);
        }
        return this;
    }

    /** The port bound (useful with port 0). */
    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        events.close();
        // A daemon stopped by an interrupt still closes its server: let Jetty's stop wait, then say so.
        boolean interrupted = Thread.interrupted();
        try {
            app.stop();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** {@link ApiAccess} applied to one request, before any handler. */
    private static final class Gate {
        private static final Set<String> OPEN = Set.of("/healthz", "/", "/index.html", "/app.js", "/ansi.js", "/style.css");
        private final ApiAccess access;
        /** Host names refused so far, each logged once (bounded: a page can try many). */
        private final Set<String> refusedHosts = ConcurrentHashMap.newKeySet();

        Gate(ApiAccess access) {
            this.access = access;
        }

        void check(Context ctx) {
            String host = ctx.header("Host");
            if (!access.acceptsHost(host)) {
                String shown = host == null ? "(none)" : Printable.name(host);
                if (refusedHosts.size() < 64 && refusedHosts.add(shown)) {
                    LOG.info("request refused: Host {} is not one this server answers to (add it with --api-host)", shown);
                }
                throw new ApiError(421, "this server does not answer to Host " + shown + " (the daemon's --api-host names those it does)");
            }
            if (OPEN.contains(ctx.path()) || ForgeHooks.ROUTES.containsKey(ctx.path())) {
                return; // a forge's webhook is authenticated by its signature, not a token (ForgeHooks)
            }
            Optional<ApiToken.Scope> scope = access.scopeOf(ctx.header("Authorization"), ctx.cookie(ApiAccess.COOKIE));
            if (!ctx.method().name().equals("GET") && !ctx.method().name().equals("HEAD")) {
                // Changes need a bearer token with the admin scope, whatever reading allows: a
                // cross-site form cannot send an Authorization header, and the cookie it can send
                // (like public reading) grants read only, so no page can change a thing.
                if (scope.isEmpty() || !scope.get().allows(ApiToken.Scope.ADMIN)) {
                    ctx.header("WWW-Authenticate", "Bearer realm=\"knotless-run\"");
                    throw new ApiError(scope.isEmpty() ? 401 : 403,
                            "this needs a token with the admin scope (Authorization: Bearer TOKEN; knotless-run api-token NAME --scope admin)");
                }
                return;
            }
            if (scope.isEmpty()) {
                ctx.header("WWW-Authenticate", "Bearer realm=\"knotless-run\"");
                throw new ApiError(401, "this needs a token with the read scope (Authorization: Bearer TOKEN)");
            }
        }
    }

    private static void page(Context ctx, String file) {
        String type = PAGE_FILES.get(file);
        if (type == null) {
            throw ApiError.notFound(file);
        }
        try (InputStream in = StatusServer.class.getResourceAsStream(PAGE + file)) {
            if (in == null) {
                throw ApiError.notFound(file);
            }
            ctx.contentType(type).header("Cache-Control", "no-cache").result(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

}
