package dev.knotless.http;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Output;
import dev.knotless.forge.Repository;
import dev.knotless.runner.daemon.ManualRuns;
import dev.knotless.runner.state.Filter;
import dev.knotless.runner.state.QueueRow;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.tar.Printable;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JSON endpoints under {@code /api} (docs/reference/api.md): reading, and the two that queue
 * runs again (admin scope, checked by the server's gate before they are reached).
 */
final class RunsApi {

    private static final Logger LOG = LoggerFactory.getLogger(RunsApi.class);

    static final int MAX_LIMIT = 1000;

    private final ApiSources sources;
    private final ApiJson json;

    RunsApi(ApiSources sources, ApiJson json) {
        this.sources = sources;
        this.json = json;
    }

    void repos(Context ctx) throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Repository r : sources.forge().repositories()) {
            Map<String, Object> repo = new LinkedHashMap<>();
            repo.put("name", r.name());
            repo.put("defaultBranch", r.defaultBranch());
            repo.put("runners", r.runners());
            out.add(repo);
        }
        json.send(ctx, out);
    }

    void runs(Context ctx) throws IOException {
        Filter filter = new Filter(blankToNull(ctx.queryParam("repo")), status(ctx.queryParam("status")), limit(ctx.queryParam("limit")),
                blankToNull(ctx.queryParam("workflow")), commit(ctx.queryParam("commit")));
        List<RunView> out = new ArrayList<>();
        for (RunRecord r : sources.state().runs().runs(filter)) {
            out.add(RunView.of(r, sources.live().run(r.id())));
        }
        json.send(ctx, out);
    }

    void run(Context ctx) throws IOException {
        RunRecord r = record(ctx.pathParam("id"));
        json.send(ctx, RunView.of(r, sources.live().run(r.id())));
    }

    void queue(Context ctx) throws IOException {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("waiting", sources.state().runs().waiting(limit(ctx.queryParam("limit"))).stream()
                .map(r -> RunView.of(r, Optional.empty())).toList());
        out.put("waitingTotal", sources.state().runs().waitingCount());
        out.put("running", sources.state().runs().going().stream().map(r -> RunView.of(r, sources.live().run(r.id()))).toList());
        List<Map<String, Object>> merge = new ArrayList<>();
        for (Repository repo : sources.forge().repositories()) {
            for (QueueRow row : sources.state().mergeQueue().queue(repo.name())) {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("repo", row.repo());
                entry.put("number", row.number());
                entry.put("target", row.target());
                entry.put("state", String.valueOf(row.state()).toLowerCase());
                entry.put("updatedAt", row.updatedAt());
                merge.add(entry);
            }
        }
        out.put("mergeQueue", merge);
        json.send(ctx, out);
    }

    /** The stored log; while a run goes, what the log file has so far (its first half-cap as written). */
    void log(Context ctx) throws IOException {
        RunRecord r = record(ctx.pathParam("id"));
        Path log = sources.checks().logPath(r.id());
        ctx.contentType("text/plain; charset=utf-8");
        ctx.header("X-Knotless-Status", r.status().wireName());
        ctx.result(Files.exists(log) ? Files.readAllBytes(log) : new byte[0]);
    }

    /**
     * One output file. Only names the check recorded are served, and the file must resolve (links
     * followed) inside the run's output directory: no path can reach anything else.
     */
    void output(Context ctx) throws IOException {
        RunRecord r = record(ctx.pathParam("id"));
        String name = ctx.pathParam("name");
        Check check = r.check() != null ? r.check() : sources.checks().load(r.id()).orElse(null);
        Output output = check == null ? null
                : check.outputs().stream().filter(o -> o.name().equals(name)).findFirst().orElse(null);
        if (output == null) {
            throw ApiError.notFound("output '" + name + "' of run " + r.id());
        }
        Path dir = sources.checks().outputDir(r.id());
        Path file = dir.resolve(output.name()).normalize();
        InputStream in;
        try {
            if (!file.startsWith(dir) || Files.isSymbolicLink(file) || !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                    || !file.toRealPath().startsWith(dir.toRealPath())) {
                throw new IOException("not a regular file inside the run's outputs");
            }
            in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            // What a run left in its outputs is hostile: one line, no stack trace, nothing served.
            LOG.info("output refused run={} name={} reason={}", r.id(), Printable.name(name), e.getMessage());
            throw ApiError.notFound("output '" + Printable.name(name) + "' of run " + r.id());
        }
        ctx.contentType(output.mediaType());
        // The page's origin must not run what a build wrote (an SVG can hold script).
        ctx.header("Content-Security-Policy", "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'");
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.result(in);
    }

    void health(Context ctx) {
        Map<String, Object> out = new LinkedHashMap<>();
        boolean state;
        try {
            sources.state().schemaVersion();
            state = true;
        } catch (IOException | RuntimeException e) {
            state = false;
        }
        boolean loop = sources.loopAlive().getAsBoolean();
        out.put("state", state ? "ok" : "not answering");
        out.put("loop", loop ? "alive" : "stopped");
        ctx.status(state && loop ? 200 : 503);
        json.send(ctx, out);
    }

    /**
     * {@code POST /api/runs/{id}/rerun}: the run queued again under a new id, like {@code
     * knotless-run rerun}; with {@code ?failed=true} only if it did not pass (then 200 and no id).
     */
    void rerun(Context ctx) throws IOException {
        RunRecord r = record(ctx.pathParam("id"));
        boolean onlyFailed = Boolean.parseBoolean(ctx.queryParam("failed"));
        if (onlyFailed && !FAILED.contains(r.status())) {
            ctx.status(200);
            json.send(ctx, Map.of("queued", List.of(), "reason", "run " + r.id() + " ended " + r.status().wireName()
                    + ": nothing failed to rerun"));
            return;
        }
        if (!r.status().isFinal()) {
            throw ApiError.conflict("run " + r.id() + " is " + r.status().wireName() + "; a run is rerun once it has ended");
        }
        RunRecord again = sources.state().runs().rerun(r.id(), Map.of());
        LOG.info("rerun queued by the API run={} again={}", r.id(), again.id());
        ctx.status(201);
        json.send(ctx, Map.of("queued", List.of(RunView.of(again, Optional.empty()))));
    }

    /** {@code POST /api/commits/{sha}/rerun-failed}: every workflow whose newest run at the commit failed, queued again. */
    void rerunFailed(Context ctx) throws IOException {
        String sha = ctx.pathParam("sha");
        if (!sha.matches("[0-9a-f]{4,40}")) {
            throw ApiError.badRequest("'" + Printable.name(sha) + "' is not a commit: 4 to 40 hex digits");
        }
        List<String> commits = sources.state().runs().commitsStartingWith(sha);
        if (commits.isEmpty()) {
            throw ApiError.notFound("runs at a commit " + sha);
        }
        if (commits.size() > 1) {
            throw ApiError.conflict(sha + " names more than one commit; give more of the sha");
        }
        List<RunView> queued = new ArrayList<>();
        for (RunRecord failed : sources.state().runs().failedAt(sha)) {
            RunRecord again = sources.state().runs().rerun(failed.id(), Map.of());
            LOG.info("rerun queued by the API run={} again={}", failed.id(), again.id());
            queued.add(RunView.of(again, Optional.empty()));
        }
        ctx.status(queued.isEmpty() ? 200 : 201);
        json.send(ctx, Map.of("queued", queued));
    }

    /**
     * {@code POST /api/runs}: {@code {"repo", "workflow", "branch"?, "inputs"?}} queues a manual run
     * of the workflow at the head of the branch (default: the repository's default branch), its
     * inputs checked as {@code exec --input} checks them; 201 and the run, 404 for an unknown
     * repository, branch or workflow, 422 when the workflow does not take the run. The body is read
     * as {@link ManualRunRequest}.
     */
    void queueManual(Context ctx) throws IOException {
        ManualRuns manual = sources.manualRuns();
        if (manual == null) {
            throw new ApiError(503, "this server queues no runs");
        }
        ManualRunRequest request = ManualRunRequest.read(ctx.bodyInputStream(), json.mapper());
        switch (manual.queue(request.repo(), request.workflow(), request.branch(), request.inputs())) {
            case ManualRuns.Outcome.Queued q -> {
                q.runs().forEach(run -> LOG.info("manual run queued by the API run={} repo={} workflow={}", run.id(),
                        request.repo(), run.workflow()));
                ctx.status(201);
                json.send(ctx, Map.of("queued", q.runs().stream().map(run -> RunView.of(run, Optional.empty())).toList()));
            }
            case ManualRuns.Outcome.NotFound n -> throw ApiError.notFound(Printable.name(n.what()));
            case ManualRuns.Outcome.Refused r -> throw ApiError.unprocessable(r.reason());
        }
    }

    /** A hook's body is one name, URL or path. */
    static final int MAX_HOOK_BYTES = 4 * 1024;

    /**
     * {@code POST /hooks/git}: {@code {"repo": NAME_URL_OR_PATH}} has the daemon poll that watched
     * repository now instead of at its next interval (a git {@code post-receive} hook calls it);
     * 202 and the repository's name, 404 when the daemon watches no such repository. Repeated hooks
     * before the daemon looks are one poll: the answer is the same, nothing queues up.
     */
    void pushHook(Context ctx) throws IOException {
        var hook = sources.pushHook();
        if (hook == null) {
            throw new ApiError(503, "this server polls no repositories");
        }
        byte[] body = ctx.bodyInputStream().readNBytes(MAX_HOOK_BYTES + 1);
        if (body.length > MAX_HOOK_BYTES) {
            throw new ApiError(413, "a hook's body is at most " + MAX_HOOK_BYTES + " bytes");
        }
        com.fasterxml.jackson.databind.JsonNode request;
        try {
            request = json.mapper().readTree(body);
        } catch (IOException e) {
            request = null;
        }
        if (request == null || !request.isObject() || request.size() != 1 || !request.has("repo")) {
            throw ApiError.badRequest("the body must be {\"repo\": \"owner/name\"} (or the repository's clone URL or path)");
        }
        com.fasterxml.jackson.databind.JsonNode value = request.get("repo");
        String repo = value.isTextual() ? value.asText() : "";
        if (repo.isBlank() || repo.length() > 1024 || repo.chars().anyMatch(Character::isISOControl)) {
            throw ApiError.badRequest("'repo' must be a non-empty line of text, at most 1024 characters");
        }
        String name = hook.pollSoon(repo)
                .orElseThrow(() -> ApiError.notFound("watched repository '" + Printable.name(repo) + "'"));
        ctx.status(202);
        json.send(ctx, Map.of("repo", name, "polling", "now"));
    }

    /**
     * {@code GET /api/runs/{id}/artifacts}: what the run saved for the workflows that need it, as
     * one tar (the paths under /work), streamed from the cache store; 404 when it saved none.
     */
    void artifacts(Context ctx) throws IOException {
        RunRecord r = record(ctx.pathParam("id"));
        var store = sources.caches();
        var archive = store == null || r.check() == null ? Optional.<dev.knotless.executor.TarSource>empty()
                : dev.knotless.runner.run.transfer.Artifacts.saved(store, r.check(), r.trust());
        if (archive.isEmpty()) {
            throw ApiError.notFound("artifacts of run " + r.id());
        }
        ctx.contentType("application/x-tar");
        ctx.header("Content-Disposition", "attachment; filename=\"" + r.id() + "-artifacts.tar\"");
        try (var out = ctx.outputStream()) {
            archive.get().writeTo(out);
        }
    }

    /**
     * {@code POST /api/runs/{id}/cancel}: a waiting run ends cancelled (200), a running one is told
     * to stop through the daemon (202; it ends as its steps do); 409 when it has ended or does not
     * go on this runner.
     */
    void cancel(Context ctx) throws IOException {
        RunRecord r = record(ctx.pathParam("id"));
        if (r.status().isFinal()) {
            throw ApiError.conflict("run " + r.id() + " ended " + r.status().wireName() + "; nothing to cancel");
        }
        dev.knotless.runner.daemon.CancelOutcome outcome = sources.cancel().cancel(r.id(), "cancelled through the API");
        RunRecord now = record(r.id());
        switch (outcome) {
            case CANCELLED -> ctx.status(200);
            case CANCELLING -> ctx.status(202);
            case NOT_GOING -> throw ApiError.conflict("run " + r.id() + " is " + now.status().wireName()
                    + (now.status().isFinal() ? "; nothing to cancel" : " but does not go on this runner"));
        }
        LOG.info("cancel asked through the API run={} outcome={}", r.id(), outcome);
        json.send(ctx, Map.of("outcome", outcome.name().toLowerCase(), "run", RunView.of(now, sources.live().run(now.id()))));
    }

    private static @Nullable String commit(@Nullable String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        if (!text.matches("[0-9a-f]{4,40}")) {
            throw ApiError.badRequest("'" + Printable.name(text) + "' is not a commit: 4 to 40 hex digits");
        }
        return text;
    }

    private static final java.util.Set<CheckStatus> FAILED = java.util.EnumSet.of(CheckStatus.FAILURE, CheckStatus.ERROR,
            CheckStatus.CANCELLED);

    RunRecord record(String id) throws IOException {
        return sources.state().runs().run(id).orElseThrow(() -> ApiError.notFound("run " + id));
    }

    private static @Nullable String blankToNull(@Nullable String s) {
        return s == null || s.isBlank() ? null : s;
    }

    private static @Nullable CheckStatus status(@Nullable String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        return Arrays.stream(CheckStatus.values()).filter(s -> s.wireName().equals(text)).findFirst()
                .orElseThrow(() -> ApiError.badRequest("unknown status '" + text + "' (use "
                        + String.join(", ", Arrays.stream(CheckStatus.values()).map(CheckStatus::wireName).toList()) + ")"));
    }

    private static int limit(@Nullable String text) {
        if (text == null || text.isBlank()) {
            return 100;
        }
        try {
            int n = Integer.parseInt(text);
            if (n < 1 || n > MAX_LIMIT) {
                throw ApiError.badRequest("limit must be between 1 and " + MAX_LIMIT + ": " + text);
            }
            return n;
        } catch (NumberFormatException e) {
            throw ApiError.badRequest("limit is not a number: " + text);
        }
    }
}
