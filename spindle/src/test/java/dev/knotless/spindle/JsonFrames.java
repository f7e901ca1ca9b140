package dev.knotless.spindle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.WebSocket;
import okhttp3.WebSocketListener;
import org.jspecify.annotations.Nullable;

/**
 * A test's viewer of one of the spindle's WebSockets ({@code /events}, {@code /logs/...}), as the
 * appview or a browser: keeps every text frame as JSON, whether it opened, and the code the
 * spindle closed it with. Shared by the spindle's tests and runner-cli's SpindleIT.
 */
public final class JsonFrames extends WebSocketListener implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<JsonNode> frames = new CopyOnWriteArrayList<>();
    private final AtomicBoolean opened = new AtomicBoolean();
    private final AtomicInteger closedWith = new AtomicInteger();
    private final WebSocket socket;

    public JsonFrames(OkHttpClient http, String url) {
        socket = http.newWebSocket(new Request.Builder().url(url).build(), this);
    }

    /** The frames so far, in the order they came. */
    public List<JsonNode> frames() {
        return frames;
    }

    public boolean opened() {
        return opened.get();
    }

    /** The code the spindle closed with; 0 while open, -1 when the connection failed. */
    public int closedWith() {
        return closedWith.get();
    }

    @Override
    public void onOpen(WebSocket ws, Response response) {
        opened.set(true);
    }

    @Override
    public void onMessage(WebSocket ws, String text) {
        try {
            frames.add(JSON.readTree(text));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void onClosing(WebSocket ws, int code, String reason) {
        closedWith.set(code);
        ws.close(1000, null);
    }

    @Override
    public void onFailure(WebSocket ws, Throwable t, @Nullable Response response) {
        closedWith.compareAndSet(0, -1);
    }

    @Override
    public void close() {
        socket.close(1000, "done");
    }
}
