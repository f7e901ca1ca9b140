package dev.knotless.atproto.forge;

import dev.knotless.atproto.repo.ProofException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.WebSocket;
import okhttp3.WebSocketListener;
import okio.ByteString;
import org.jspecify.annotations.Nullable;

/**
 * Follows a PDS's {@code com.atproto.sync.subscribeRepos} and says which accounts' repository
 * records changed, so discovery reads one account again instead of every account.
 *
 * <p>One WebSocket at a time ({@code ws}/{@code wss}: OkHttp upgrades the {@code http}/{@code
 * https} URL), dialled again after {@link ReconnectDelay} when it ends, from the last {@code seq}
 * handled, which {@link FirehoseCursor} keeps across restarts (saved at most once a second, and on
 * close). Frames are handled on OkHttp's reader thread and only mark accounts; nothing here
 * waits on the daemon's loop, nor it on this.
 *
 * <p>A commit that touches a repository record is acted on only when its signature verifies
 * under the account's key ({@link CommitSignatures}): what the stream says an account wrote, the
 * account signed. (A forged frame could at most make discovery read that account's records again
 * through the PDS's API, but a stream that is believed unchecked invites more uses than that.) A
 * commit whose blocks the PDS left out ({@code tooBig}) cannot be checked, and marks nothing: the
 * full scan reads that account. Each frame's structure is checked ({@link FirehoseFrame}); one
 * that does not pass is a log line (at most one a minute, with a count) and is skipped.
 */
public final class Firehose implements AutoCloseable {

    /** What the firehose tells discovery. */
    public interface Changes {
        /** {@code did}'s repository records may have changed. */
        void accountChanged(String did);

        /** Events were lost (the cursor is older than the PDS keeps, or unknown to it): read every account. */
        void eventsLost();
    }

    static final Duration SAVE_EVERY = Duration.ofSeconds(1);
    static final Duration BAD_FRAME_LINE_EVERY = Duration.ofMinutes(1);
    /** Pings find a connection that died without a close; the PDS may be quiet for hours. */
    static final Duration PING = Duration.ofSeconds(30);

    private final OkHttpClient http;
    private final HttpUrl pds;
    private final FirehoseCursor cursor;
    private final Changes changes;
    private final CommitSignatures signatures;
    private final ReconnectDelay delays;
    private final RandomGenerator random;
    private final Clock clock;
    private final Consumer<String> log;
    /** The collections whose commits mark an account changed. */
    private final java.util.Set<String> collections;
    private final ScheduledExecutorService timer;

    private final Object lock = new Object();
    private long seq = -1;
    private boolean dirty;
    private int failures;
    private boolean lost;
    private boolean closed;
    private @Nullable WebSocket current;
    private Instant lastBadLine = Instant.MIN;
    private long badUnsaid;
    private boolean saveFailing;

    /** A firehose that marks accounts whose {@code dev.knotless.repo} records changed. */
    public Firehose(OkHttpClient http, HttpUrl pds, FirehoseCursor cursor, Changes changes, CommitSignatures signatures,
            ReconnectDelay delays, RandomGenerator random, Clock clock, Consumer<String> log) {
        this(http, pds, cursor, changes, signatures, delays, random, clock, log, java.util.Set.of(RepoRecords.COLLECTION));
    }

    /** A firehose that marks accounts whose records of any of {@code collections} changed (a spindle's tangled records). */
    public Firehose(OkHttpClient http, HttpUrl pds, FirehoseCursor cursor, Changes changes, CommitSignatures signatures,
            ReconnectDelay delays, RandomGenerator random, Clock clock, Consumer<String> log, java.util.Set<String> collections) {
        this.collections = java.util.Set.copyOf(collections);
        this.signatures = signatures;
        // No read timeout: the stream may be quiet for hours; pings tell a dead connection instead.
        this.http = http.newBuilder().readTimeout(Duration.ZERO).pingInterval(PING).build();
        this.pds = pds;
        this.cursor = cursor;
        this.changes = changes;
        this.delays = delays;
        this.random = random;
        this.clock = clock;
        this.log = log;
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform()
                .name("knotless-firehose").daemon().unstarted(r));
        t.setRemoveOnCancelPolicy(true);
        this.timer = t;
    }

    /** Reads the stored cursor and dials; returns at once. */
    public void start() {
        OptionalLong stored;
        try {
            stored = cursor.load();
        } catch (IOException e) {
            log.accept("atproto: cannot read the firehose cursor " + cursor.file() + " (" + e.getMessage() + "); following from now");
            stored = OptionalLong.empty();
        }
        synchronized (lock) {
            seq = stored.orElse(-1);
        }
        log.accept("atproto: following the firehose of " + pds
                + (stored.isPresent() ? " from cursor " + stored.getAsLong() : " from now (no cursor stored)"));
        timer.scheduleWithFixedDelay(this::saveQuietly, SAVE_EVERY.toMillis(), SAVE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        timer.execute(this::dial);
    }

    /** The last {@code seq} handled; -1 before any. */
    public long seq() {
        synchronized (lock) {
            return seq;
        }
    }

    HttpUrl url(long from) {
        HttpUrl.Builder url = pds.newBuilder().addPathSegment("xrpc").addPathSegment("com.atproto.sync.subscribeRepos");
        if (from >= 0) {
            url.addQueryParameter("cursor", Long.toString(from));
        }
        return url.build();
    }

    private void dial() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            Request request = new Request.Builder().url(url(seq)).build();
            current = http.newWebSocket(request, new Listener());
        }
    }

    /** One socket's events; those of a socket that is no longer the current one are ignored. */
    private final class Listener extends WebSocketListener {
        @Override
        public void onOpen(WebSocket socket, Response response) {
            boolean fromNow;
            synchronized (lock) {
                if (socket != current || closed) {
                    return;
                }
                if (lost) {
                    log.accept("atproto: following the firehose again" + (seq >= 0 ? " from cursor " + seq : ""));
                    lost = false;
                }
                fromNow = seq < 0;
            }
            if (fromNow) {
                // Joined without a cursor: what was written between the last scan and now came on no
                // stream. One full scan, now that the stream is open, leaves no gap.
                changes.eventsLost();
            }
        }

        @Override
        public void onMessage(WebSocket socket, ByteString bytes) {
            if (bytes.size() > FirehoseFrame.MAX_BYTES) {
                refused("a frame of " + bytes.size() + " bytes, over the " + FirehoseFrame.MAX_BYTES + " allowed");
                return;
            }
            if (isCurrent(socket)) {
                handle(bytes.toByteArray());
            }
        }

        @Override
        public void onMessage(WebSocket socket, String text) {
            refused("a text frame (frames are binary DAG-CBOR)");
        }

        @Override
        public void onClosing(WebSocket socket, int code, String reason) {
            socket.close(1000, null);
            ended(socket, "closed by the PDS (" + code + (reason.isEmpty() ? "" : " " + oneLine(reason, 100)) + ")");
        }

        @Override
        public void onClosed(WebSocket socket, int code, String reason) {
            ended(socket, "closed (" + code + ")");
        }

        @Override
        public void onFailure(WebSocket socket, Throwable t, @Nullable Response response) {
            ended(socket, response != null ? "HTTP " + response.code() : oneLine(String.valueOf(t.getMessage()), 200));
        }
    }

    private boolean isCurrent(WebSocket socket) {
        synchronized (lock) {
            return socket == current && !closed;
        }
    }

    /** A socket ended: dial again after a delay, saying so once until it works again. */
    private void ended(WebSocket socket, String why) {
        synchronized (lock) {
            if (socket != current || closed) {
                return;
            }
            current = null;
            failures++;
            Duration wait = delays.after(failures, random);
            if (!lost) {
                log.accept("atproto: the firehose " + why + "; dialling again in " + wait.toMillis() + " ms"
                        + (seq >= 0 ? " from cursor " + seq : "") + " (said once until it is back)");
                lost = true;
            }
            timer.schedule(this::dial, wait.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Handles one binary frame; package-private so tests give frames without a socket. */
    void handle(byte[] bytes) {
        FirehoseFrame frame;
        try {
            frame = FirehoseFrame.decode(bytes);
        } catch (ProofException | RuntimeException e) {
            refused(e.getMessage());
            return;
        }
        switch (frame) {
            case FirehoseFrame.Commit c -> {
                if (advance(c.seq()) && collections.stream().anyMatch(c::touches)) {
                    Optional<String> refused = c.signed() == null
                            ? Optional.of("a commit of " + c.did() + " without its blocks cannot be checked; the next full scan reads it")
                            : signatures.refusal(c.signed());
                    if (refused.isPresent()) {
                        refused(refused.get());
                    } else {
                        changes.accountChanged(c.did());
                    }
                }
            }
            case FirehoseFrame.Sync s -> {
                if (advance(s.seq())) {
                    changes.accountChanged(s.did());
                }
            }
            case FirehoseFrame.AccountEvent a -> advance(a.seq());
            case FirehoseFrame.Info i -> {
                if (i.name().equals("OutdatedCursor")) {
                    log.accept("atproto: the firehose cursor is older than the PDS keeps (" + i.message()
                            + "); every account's records are read again");
                    changes.eventsLost();
                } else {
                    log.accept("atproto: the firehose says " + i.name() + (i.message().isEmpty() ? "" : ": " + i.message()));
                }
            }
            case FirehoseFrame.Error e -> {
                log.accept("atproto: the firehose answered an error: " + e.error() + (e.message().isEmpty() ? "" : ": " + e.message()));
                if (e.error().equals("FutureCursor")) {
                    // The PDS's sequence was reset under us: our number means nothing there now.
                    forgetCursor();
                    changes.eventsLost();
                }
            }
            case FirehoseFrame.Unknown u -> { } // the lexicon says to skip types one does not know
        }
    }

    /** Takes {@code next} as the cursor; false for a frame at or before it (a replay), which was handled already. */
    private boolean advance(long next) {
        synchronized (lock) {
            if (next <= seq) {
                return false;
            }
            seq = next;
            dirty = true;
            failures = 0; // a frame handled: the connection works
            return true;
        }
    }

    private void forgetCursor() {
        synchronized (lock) {
            seq = -1;
            dirty = false;
            try {
                cursor.forget();
            } catch (IOException e) {
                log.accept("atproto: cannot remove the firehose cursor " + cursor.file() + ": " + e.getMessage());
            }
        }
    }

    /** One line for a refused frame, at most one a minute, counting those left unsaid. */
    private void refused(@Nullable String why) {
        synchronized (lock) {
            Instant now = clock.instant();
            if (now.isBefore(lastBadLine.plus(BAD_FRAME_LINE_EVERY))) {
                badUnsaid++;
                return;
            }
            String also = badUnsaid == 0 ? "" : " (and " + badUnsaid + " more refused since the last such line)";
            log.accept("atproto: a firehose frame is skipped: " + oneLine(String.valueOf(why), 200) + also);
            lastBadLine = now;
            badUnsaid = 0;
        }
    }

    /** Saves the cursor if it moved. */
    void save() throws IOException {
        long at;
        synchronized (lock) {
            if (!dirty) {
                return;
            }
            at = seq;
            dirty = false;
        }
        cursor.save(at);
    }

    private void saveQuietly() {
        try {
            save();
            synchronized (lock) {
                if (saveFailing) {
                    log.accept("atproto: the firehose cursor is saved again");
                    saveFailing = false;
                }
            }
        } catch (IOException | RuntimeException e) {
            synchronized (lock) {
                dirty = true; // tried again in a second
                if (!saveFailing) {
                    log.accept("atproto: cannot save the firehose cursor " + cursor.file() + " (" + oneLine(String.valueOf(e.getMessage()), 200)
                            + "); a restart would replay from an older one");
                    saveFailing = true;
                }
            }
        }
    }

    @Override
    public void close() {
        WebSocket socket;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            socket = current;
            current = null;
        }
        if (socket != null) {
            socket.close(1000, "runner stopping");
        }
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            save();
        } catch (IOException e) {
            log.accept("atproto: cannot save the firehose cursor " + cursor.file() + ": " + e.getMessage());
        }
    }

    private static String oneLine(String s, int most) {
        String line = s.replaceAll("\\p{Cntrl}+", " ");
        return line.length() > most ? line.substring(0, most) + "…" : line;
    }
}
