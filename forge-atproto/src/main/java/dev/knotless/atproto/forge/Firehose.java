package dev.knotless.atproto.forge;

import dev.knotless.atproto.repo.ProofException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okio.ByteString;

/**
 * Follows a PDS's {@code com.atproto.sync.subscribeRepos} and says which accounts' repository
 * records changed, so discovery reads one account again instead of every account.
 *
 * <p>The socket, the reconnecting, the cursor (the last {@code seq} handled, which {@link
 * FirehoseCursor} keeps across restarts) and the bound on a frame ({@link FirehoseFrame#MAX_BYTES})
 * are {@link StreamFollower}'s; this is what a frame of the firehose means. Frames are binary
 * DAG-CBOR, handled on OkHttp's reader thread, and only mark accounts.
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

    static final Duration BAD_FRAME_LINE_EVERY = StreamFollower.BAD_FRAME_LINE_EVERY;

    private final HttpUrl pds;
    private final Changes changes;
    private final CommitSignatures signatures;
    private final Consumer<String> log;
    /** The collections whose commits mark an account changed. */
    private final Set<String> collections;
    private final StreamFollower follower;

    /** A firehose that marks accounts whose {@code dev.knotless.repo} records changed. */
    public Firehose(OkHttpClient http, HttpUrl pds, FirehoseCursor cursor, Changes changes, CommitSignatures signatures,
            ReconnectDelay delays, RandomGenerator random, Clock clock, Consumer<String> log) {
        this(http, pds, cursor, changes, signatures, delays, random, clock, log, Set.of(RepoRecords.COLLECTION));
    }

    /** A firehose that marks accounts whose records of any of {@code collections} changed (a spindle's tangled records). */
    public Firehose(OkHttpClient http, HttpUrl pds, FirehoseCursor cursor, Changes changes, CommitSignatures signatures,
            ReconnectDelay delays, RandomGenerator random, Clock clock, Consumer<String> log, Set<String> collections) {
        this.pds = pds;
        this.changes = changes;
        this.signatures = signatures;
        this.log = log;
        this.collections = Set.copyOf(collections);
        // A join without a cursor is events lost: what was written between the last scan and now came on no stream.
        this.follower = new StreamFollower(http, cursor,
                new StreamFollower.Stream(this::url, new StreamFollower.Frames.Binary(this::frame), FirehoseFrame.MAX_BYTES,
                        changes::eventsLost),
                new StreamFollower.Words("atproto", "firehose", "PDS", "the firehose of " + pds, "", "runner stopping"),
                delays, random, clock, log);
    }

    /** Reads the stored cursor and dials; returns at once. */
    public void start() {
        follower.start();
    }

    /** The last {@code seq} handled; -1 before any. */
    public long seq() {
        return follower.cursor();
    }

    HttpUrl url(long from) {
        HttpUrl.Builder url = pds.newBuilder().addPathSegment("xrpc").addPathSegment("com.atproto.sync.subscribeRepos");
        if (from >= 0) {
            url.addQueryParameter("cursor", Long.toString(from));
        }
        return url.build();
    }

    /** Handles one binary frame as the socket would; package-private so tests give frames without a socket. */
    void handle(byte[] bytes) {
        follower.received(ByteString.of(bytes));
    }

    /** Saves the cursor if it moved. */
    void save() throws IOException {
        follower.save();
    }

    @Override
    public void close() {
        follower.close();
    }

    /** What one frame says; its {@code seq}, if it has one, for the follower to take as the cursor. */
    private StreamFrame frame(byte[] bytes) {
        FirehoseFrame frame;
        try {
            frame = FirehoseFrame.decode(bytes);
        } catch (ProofException | RuntimeException e) {
            return StreamFrame.skipped(e.getMessage());
        }
        return switch (frame) {
            case FirehoseFrame.Commit c -> {
                if (isNew(c.seq()) && collections.stream().anyMatch(c::touches)) {
                    Optional<String> refused = c.signed() == null
                            ? Optional.of("a commit of " + c.did() + " without its blocks cannot be checked; the next full scan reads it")
                            : signatures.refusal(c.signed());
                    if (refused.isPresent()) {
                        yield new StreamFrame.Skipped(refused.get(), c.seq(), false); // the stream goes on past it
                    }
                    changes.accountChanged(c.did());
                }
                yield StreamFrame.at(c.seq());
            }
            case FirehoseFrame.Sync s -> {
                if (isNew(s.seq())) {
                    changes.accountChanged(s.did());
                }
                yield StreamFrame.at(s.seq());
            }
            case FirehoseFrame.AccountEvent a -> StreamFrame.at(a.seq());
            case FirehoseFrame.Info i -> {
                if (i.name().equals("OutdatedCursor")) {
                    log.accept("atproto: the firehose cursor is older than the PDS keeps (" + i.message()
                            + "); every account's records are read again");
                    changes.eventsLost();
                } else {
                    log.accept("atproto: the firehose says " + i.name() + (i.message().isEmpty() ? "" : ": " + i.message()));
                }
                yield StreamFrame.handled();
            }
            case FirehoseFrame.Error e -> {
                log.accept("atproto: the firehose answered an error: " + e.error() + (e.message().isEmpty() ? "" : ": " + e.message()));
                if (e.error().equals("FutureCursor")) {
                    // The PDS's sequence was reset under us: our number means nothing there now.
                    follower.forgetCursor();
                    changes.eventsLost();
                }
                yield StreamFrame.handled();
            }
            case FirehoseFrame.Unknown u -> StreamFrame.handled(); // the lexicon says to skip types one does not know
        };
    }

    /** Whether {@code seq} is past the cursor; one at or before it is a replay, handled already. */
    private boolean isNew(long seq) {
        return seq > follower.cursor();
    }
}
