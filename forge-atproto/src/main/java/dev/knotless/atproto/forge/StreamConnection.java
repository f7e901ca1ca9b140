package dev.knotless.atproto.forge;

import okhttp3.Response;
import okhttp3.WebSocket;
import okhttp3.WebSocketListener;
import okio.ByteString;
import org.jspecify.annotations.Nullable;

/**
 * One connection a {@link StreamFollower} dialled: its socket's events, each given to the
 * follower (which ignores those of a socket that is no longer its current one), and where the
 * connection's frames are sure to come again from.
 */
final class StreamConnection extends WebSocketListener {

    private final StreamFollower follower;
    private final StreamLines lines;

    /**
     * Where this connection's frames are all sure to come again from: the cursor it was dialled
     * with ({@link StreamFollower.Stream#resumeFromNow} when none), or the last frame's own
     * position. Read and moved only while one of its frames is handled: guarded by the follower's
     * lock on handling.
     */
    long resumeFrom;

    StreamConnection(StreamFollower follower, StreamLines lines, long resumeFrom) {
        this.follower = follower;
        this.lines = lines;
        this.resumeFrom = resumeFrom;
    }

    @Override
    public void onOpen(WebSocket socket, Response response) {
        follower.opened(socket);
    }

    @Override
    public void onMessage(WebSocket socket, ByteString bytes) {
        follower.received(socket, this, bytes);
    }

    @Override
    public void onMessage(WebSocket socket, String text) {
        follower.received(socket, this, text);
    }

    @Override
    public void onClosing(WebSocket socket, int code, String reason) {
        socket.close(1000, null);
        follower.ended(socket, lines.closedByServer(code, reason), false);
    }

    @Override
    public void onClosed(WebSocket socket, int code, String reason) {
        follower.ended(socket, lines.closed(code), false);
    }

    @Override
    public void onFailure(WebSocket socket, Throwable t, @Nullable Response response) {
        follower.ended(socket, lines.failed(t, response), false);
    }
}
