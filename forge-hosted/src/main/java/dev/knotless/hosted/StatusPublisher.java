package dev.knotless.hosted;

import dev.knotless.checks.Check;
import dev.knotless.checks.Event;
import dev.knotless.forge.CheckPublisher;
import dev.knotless.forge.Forge;
import dev.knotless.forge.Repository;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * Posts a check's state as a commit status to the hosted forge of its repository ({@link
 * StatusTokens} says which ones are), for push, pull-request, manual and scheduled runs (a merge
 * queue batch's commit exists only on the runner).
 *
 * <p>Never in a run's way: {@link #started} and {@link #publish} only note the wanted status and
 * return; one thread per forge API posts them. Per status (forge, project, commit, context) only
 * the newest wanted state is kept, so a state superseded before it was posted is never posted, and
 * one that equals what was last posted is not posted again. Waiting statuses are bounded per forge
 * ({@link #MAX_WAITING}); past it new ones are dropped with a log line. A 5xx, 429 or no answer is
 * tried again after a growing pause ({@link Retry}) while other statuses for that forge go on; any
 * other 4xx is given up at once with one log line (a token or project that is wrong will not get
 * better). Tokens are never logged.
 */
public final class StatusPublisher implements CheckPublisher, AutoCloseable {

    /** Statuses a forge may have waiting before new ones are dropped. */
    static final int MAX_WAITING = 1000;
    /** Statuses remembered as posted, per forge, to skip repeating one. */
    static final int MAX_REMEMBERED = 10_000;
    private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");

    /** The pauses between tries: {@code first}, doubled each time up to {@code longest}, {@code tries} in all. */
    public record Retry(Duration first, Duration longest, int tries) {
        /** 1 s, 2 s, 4 s ... 5 min: about 13 minutes of a forge being down before a status is given up. */
        public static final Retry DEFAULT = new Retry(Duration.ofSeconds(1), Duration.ofMinutes(5), 10);

        Duration after(int tried) {
            long ms = first.toMillis() << Math.min(tried - 1, 30);
            return Duration.ofMillis(Math.min(ms <= 0 ? Long.MAX_VALUE : ms, longest.toMillis()));
        }
    }

    private final StatusTokens tokens;
    private final Forge forge;
    private final @Nullable String pageUrl;
    private final Consumer<String> log;
    private final Retry retry;
    private final OkHttpClient http;
    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param forge where a check's repository record is read (its clone URL)
     * @param pageUrl the status page's address as people reach it; null for statuses without a link
     */
    public StatusPublisher(StatusTokens tokens, Forge forge, @Nullable String pageUrl, Consumer<String> log, Retry retry,
            OkHttpClient http) {
        this.tokens = tokens;
        this.forge = forge;
        this.pageUrl = pageUrl;
        this.log = log;
        this.retry = retry;
        this.http = http;
    }

    /** A client with short timeouts: a forge that does not answer holds its own thread a few seconds, nothing else. */
    public static OkHttpClient client() {
        return new OkHttpClient.Builder().connectTimeout(Duration.ofSeconds(5)).readTimeout(Duration.ofSeconds(15))
                .callTimeout(Duration.ofSeconds(20)).retryOnConnectionFailure(false).build();
    }

    @Override
    public void started(Check check) throws IOException {
        want(check);
    }

    @Override
    public void publish(Check check) throws IOException {
        want(check);
    }

    private void want(Check check) throws IOException {
        if (closed || check.event() == Event.BATCH || check.commit() == null || !SHA.matcher(check.commit()).matches()) {
            return;
        }
        Optional<StatusTarget> target = target(check.repo());
        if (target.isEmpty()) {
            return;
        }
        CommitStatus status = CommitStatus.of(target.get().account().kind(), check, pageUrl);
        lanes.computeIfAbsent(target.get().account().base(), api -> new Lane(api)).want(target.get(), status);
    }

    /** A check's {@code repo} is what was cloned (the record's clone URL), or the record's name. */
    private Optional<StatusTarget> target(String repo) throws IOException {
        for (Repository r : forge.repositories()) {
            if (r.name().equals(repo) || r.cloneUrl().equals(repo)) {
                return tokens.target(r);
            }
        }
        return Optional.empty();
    }

    /** Posts what is due now, waits up to {@code grace} for it, and drops retries still to come. */
    public void close(Duration grace) {
        closed = true;
        for (Lane lane : lanes.values()) {
            lane.executor.shutdown();
        }
        try {
            for (Lane lane : lanes.values()) {
                if (!lane.executor.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                    lane.executor.shutdownNow();
                }
            }
        } catch (InterruptedException e) {
            lanes.values().forEach(l -> l.executor.shutdownNow());
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }

    /** One forge API's statuses and the one thread that posts them. */
    private final class Lane {
        private record Wanted(StatusTarget target, CommitStatus status, int tried) {}

        final ScheduledThreadPoolExecutor executor;
        private final String api;
        /** Per status key, the newest wanted state not yet posted (insertion order: oldest first). */
        private final Map<String, Wanted> waiting = new LinkedHashMap<>();
        /** Per status key, the state and description last posted; least recently posted dropped first. */
        private final Map<String, String> posted = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
                return size() > MAX_REMEMBERED;
            }
        };
        private boolean saidFull;

        Lane(String api) {
            this.api = api;
            this.executor = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform().daemon().name("statuses " + api).unstarted(r));
            executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        }

        void want(StatusTarget target, CommitStatus status) {
            String key = target.project() + "@" + status.sha() + " " + status.context();
            String said = status.state() + " " + status.description() + " " + status.targetUrl();
            boolean schedule;
            synchronized (this) {
                if (!waiting.containsKey(key) && said.equals(posted.get(key))) {
                    return; // posted already: the same state twice is one request
                }
                if (!waiting.containsKey(key) && waiting.size() >= MAX_WAITING) {
                    if (!saidFull) {
                        saidFull = true;
                        log.accept("commit statuses for " + api + ": " + MAX_WAITING + " wait already; dropping new ones until"
                                + " the forge takes them");
                    }
                    return;
                }
                schedule = !waiting.containsKey(key);
                waiting.put(key, new Wanted(target, status, 0));
            }
            if (schedule) {
                executor.execute(() -> deliver(key));
            }
        }

        /** One try at {@code key}'s newest wanted state; a bug here is one line, not a silently dead task. */
        private void deliver(String key) {
            try {
                tryOnce(key);
            } catch (RuntimeException | LinkageError e) {
                log.accept("commit statuses for " + api + ": " + e);
            }
        }

        private void tryOnce(String key) {
            Wanted w;
            synchronized (this) {
                w = waiting.get(key);
                if (w == null) {
                    return;
                }
            }
            Delivery outcome = post(w);
            String said = w.status().state() + " " + w.status().description() + " " + w.status().targetUrl();
            String what = "commit status " + w.status().state() + " " + w.status().context() + " for " + w.target().project()
                    + "@" + w.status().sha().substring(0, 12) + " on " + w.target().account();
            boolean again;
            Duration pause = Duration.ZERO;
            synchronized (this) {
                Wanted now = waiting.get(key);
                boolean superseded = now != w;
                switch (outcome) {
                    case Delivery.Posted p -> {
                        posted.put(key, said);
                        if (!superseded) {
                            waiting.remove(key);
                        }
                        again = superseded;
                    }
                    case Delivery.Refused r -> {
                        log.accept(what + " not posted: " + r.why());
                        if (!superseded) {
                            waiting.remove(key);
                        }
                        again = superseded;
                    }
                    case Delivery.Again a -> {
                        int tried = w.tried() + 1;
                        if (!superseded && tried >= retry.tries()) {
                            log.accept(what + " not posted after " + tried + " tries: " + a.why());
                            waiting.remove(key);
                            again = false;
                        } else {
                            if (tried == 1) {
                                log.accept(what + " not posted yet: " + a.why() + "; trying again, up to " + retry.tries() + " tries");
                            }
                            if (!superseded) {
                                waiting.put(key, new Wanted(w.target(), w.status(), tried));
                            }
                            pause = a.after() != null && a.after().compareTo(retry.longest()) < 0 ? a.after() : retry.after(tried);
                            again = true;
                        }
                    }
                }
                if (waiting.size() < MAX_WAITING / 2) {
                    saidFull = false;
                }
            }
            if (again && !executor.isShutdown()) {
                executor.schedule(() -> deliver(key), pause.toMillis(), TimeUnit.MILLISECONDS);
            }
        }

        private Delivery post(Wanted w) {
            Request request = StatusRequests.of(w.target(), w.status());
            try (Response response = http.newCall(request).execute()) {
                int code = response.code();
                if (code >= 200 && code < 300) {
                    return new Delivery.Posted();
                }
                if (code == 429 || code >= 500) {
                    return new Delivery.Again("answered " + code, retryAfter(response.header("Retry-After")));
                }
                return new Delivery.Refused("answered " + code + (code == 401 || code == 403 ? " (is the token right, and may it write statuses?)"
                        : code == 404 ? " (is the project right, and may the token see it?)" : ""));
            } catch (IOException | RuntimeException e) {
                return new Delivery.Again("no answer (" + e.getClass().getSimpleName() + ")", null);
            }
        }

        private static @Nullable Duration retryAfter(@Nullable String header) {
            try {
                return header == null ? null : Duration.ofSeconds(Math.max(0, Long.parseLong(header.strip())));
            } catch (NumberFormatException e) {
                return null;
            }
        }
    }
}
