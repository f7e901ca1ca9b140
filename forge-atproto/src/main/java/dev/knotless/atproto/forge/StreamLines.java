package dev.knotless.atproto.forge;

import dev.knotless.atproto.forge.StreamPolicy.Lines;
import dev.knotless.text.OneLine;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.OptionalLong;
import javax.net.ssl.SSLException;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link StreamFollower} says, in its stream's {@link StreamFollower.Words}: each line
 * without the prefix, which the follower puts first. Where the two {@link Lines} differ, a
 * firehose's line names its stream ("the firehose ...", "a firehose frame"), and a knot's does
 * not (its prefix does: "knot K: ...") and tells closer why a dial failed; the rest they share.
 */
record StreamLines(StreamFollower.Words words, Lines lines, ReconnectDelay delays) {

    /** The first line: what is followed, and from where. */
    String following(OptionalLong stored) {
        String fromNow = lines == Lines.ONCE ? " from now (no cursor stored)" : " from now";
        return "following " + words.source() + (stored.isPresent() ? " from cursor " + stored.getAsLong() + words.rewind() : fromNow);
    }

    /** A connection opened after a failure was said. */
    String again(long cursor) {
        return switch (lines) {
            case ONCE -> "following the " + words.stream() + " again" + (cursor >= 0 ? " from cursor " + cursor : "");
            case AS_THE_WAIT_DOUBLES -> "following again" + (cursor >= 0 ? " from cursor " + cursor : " from now");
        };
    }

    /** A connection ended for {@code why}: dialled again after {@code wait}; {@code nominal} the wait without jitter, in ms. */
    String lost(String why, int failures, Duration wait, long nominal, long cursor) {
        String dialling = "; dialling again in " + wait.toMillis() + " ms";
        return switch (lines) {
            case ONCE -> "the " + words.stream() + " " + why + dialling + (cursor >= 0 ? " from cursor " + cursor : "")
                    + " (said once until it is back)";
            case AS_THE_WAIT_DOUBLES -> why + (failures == 1 ? "" : " (" + failures + " failures in a row)") + dialling
                    + (nominal < delays.most().toMillis() ? " (said again when the wait doubles, up to " + human(delays.most()) + ")"
                            : " and every " + human(delays.most()) + " or less after that, without saying so");
        };
    }

    /** Why: the server sent a close frame. */
    String closedByServer(int code, String reason) {
        String said = code + (reason.isEmpty() ? "" : " " + OneLine.ofUntrusted(reason, 100));
        return switch (lines) {
            case ONCE -> "closed by the " + words.server() + " (" + said + ")";
            case AS_THE_WAIT_DOUBLES -> "the " + words.server() + " closed the connection (" + said + ")";
        };
    }

    /** Why: the connection closed without the server's close frame first. */
    String closed(int code) {
        return switch (lines) {
            case ONCE -> "closed (" + code + ")";
            case AS_THE_WAIT_DOUBLES -> "the connection closed (" + code + ")";
        };
    }

    /** Why: the dial failed, or the open connection did. */
    String failed(Throwable t, @Nullable Response response) {
        return switch (lines) {
            case ONCE -> response != null ? "HTTP " + response.code() : OneLine.ofUntrusted(t.getMessage(), 200);
            case AS_THE_WAIT_DOUBLES -> describe(t, response);
        };
    }

    private String describe(Throwable t, @Nullable Response response) {
        if (response != null) {
            return "the " + words.server() + " answered HTTP " + response.code() + (response.message().isEmpty() ? "" : " "
                    + OneLine.ofUntrusted(response.message(), 80)) + " instead of a WebSocket";
        }
        String message = t.getMessage() == null ? t.getClass().getSimpleName() : OneLine.ofUntrusted(t.getMessage(), 200);
        return switch (t) {
            case BoundedSockets.FrameTooBig tooBig -> message;
            case UnknownHostException unknown -> "its host does not resolve (" + message + ")";
            case ConnectException refused -> "cannot connect (" + message + ")";
            case SSLException tls -> "TLS failed (" + message + ")";
            default -> "the connection failed ("
                    + (t.getMessage() == null ? message : t.getClass().getSimpleName() + ": " + message) + ")";
        };
    }

    /** Why: a frame over the bound came whole, and the connection is dropped ({@link StreamPolicy.Oversized#DROPPED}). */
    String dropped(long size, int most) {
        return "a frame of " + size + " bytes, over the " + most + " allowed";
    }

    /** Why a frame over the bound is skipped ({@link StreamPolicy.Oversized#SKIPPED}). */
    String overTheBound(int most) {
        return "a frame of over " + most + " bytes";
    }

    /** Why a frame of the kind the stream does not send is skipped. */
    String otherKind(boolean binary) {
        return binary ? "a binary frame (" + words.stream() + " frames are text; compression was not asked for)"
                : "a text frame (" + words.stream() + " frames are binary)";
    }

    /** A frame skipped; {@code unsaid} more were since the last such line. */
    String skipped(String why, long unsaid) {
        return switch (lines) {
            case ONCE -> "a " + words.stream() + " frame is skipped: " + why
                    + (unsaid == 0 ? "" : " (and " + unsaid + " more refused since the last such line)");
            case AS_THE_WAIT_DOUBLES -> "a frame is skipped: " + why
                    + (unsaid == 0 ? "" : " (and " + unsaid + " more skipped since the last such line)");
        };
    }

    String cannotRead(StreamCursor store, Exception e) {
        return "cannot read the " + words.stream() + " cursor" + where(store) + " (" + OneLine.ofUntrusted(e.getMessage(), 200)
                + "); following from now";
    }

    String cannotSave(StreamCursor store, Exception e) {
        return "cannot save the " + words.stream() + " cursor" + where(store) + " (" + OneLine.ofUntrusted(e.getMessage(), 200)
                + "); a restart would replay from an older one";
    }

    String savedAgain() {
        return "the " + words.stream() + " cursor is saved again";
    }

    /** A save that fails where no later one comes: on close, or forgetting. */
    String cannotKeep(String verb, StreamCursor store, Exception e) {
        return "cannot " + verb + " the " + words.stream() + " cursor" + where(store) + ": " + OneLine.ofUntrusted(e.getMessage(), 200);
    }

    String stillHandling(Duration waited) {
        return "a frame's handler is still running after " + waited.toSeconds() + " s; not waited for";
    }

    private static String where(StreamCursor store) {
        return store.where().isEmpty() ? "" : " " + store.where();
    }

    private static String human(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000 || ms % 1000 != 0) {
            return ms + " ms";
        }
        return ms % 60_000 == 0 ? ms / 60_000 + " min" : ms / 1000 + " s";
    }
}
