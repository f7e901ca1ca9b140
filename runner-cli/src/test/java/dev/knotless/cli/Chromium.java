package dev.knotless.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Debian's {@code chromium}, headless, driven over the Chrome DevTools Protocol on its WebSocket with
 * the JDK's client: navigate, evaluate, and click with real mouse events at an element's position.
 */
final class Chromium implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** What the page fetched and how long each took: a request still under way is not listed. */
    private static final String ANSWERED = "performance.getEntriesByType('resource').map(e => e.name.replace(location.origin, '')"
            + " + ' ' + Math.round(e.duration)).join('\\n')";

    private final Process process;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final List<String> console = new java.util.concurrent.CopyOnWriteArrayList<>();

    Chromium(Path profile) throws Exception {
        Files.createDirectories(profile);
        // --no-sandbox: the tests run as root, where Chromium's sandbox refuses to start.
        process = new ProcessBuilder("chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--remote-debugging-port=0",
                "--user-data-dir=" + profile, "about:blank")
                .redirectErrorStream(true).redirectOutput(profile.resolve("chromium.log").toFile()).start();
        try {
            socket = connect(profile);
            call("Runtime.enable", Map.of()); // console messages and uncaught errors, for failure messages
        } catch (Exception e) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw e;
        }
    }

    private WebSocket connect(Path profile) throws Exception {
        Path portFile = profile.resolve("DevToolsActivePort");
        Instant deadline = Instant.now().plusSeconds(30);
        while (!Files.exists(portFile) || Files.readAllLines(portFile).size() < 2) {
            if (Instant.now().isAfter(deadline) || !process.isAlive()) {
                throw new IOException("chromium did not start; its log:\n" + Files.readString(profile.resolve("chromium.log")));
            }
            Thread.sleep(100);
        }
        int port = Integer.parseInt(Files.readAllLines(portFile).getFirst().strip());
        HttpClient http = HttpClient.newHttpClient();
        String targets = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        String page = null;
        for (JsonNode t : JSON.readTree(targets)) {
            if (t.get("type").asText().equals("page")) {
                page = t.get("webSocketDebuggerUrl").asText();
            }
        }
        if (page == null) {
            throw new IOException("chromium has no page target: " + targets);
        }
        return http.newWebSocketBuilder().buildAsync(URI.create(page), new Listener()).get(10, TimeUnit.SECONDS);
    }

    /** Sends one command and waits for its result. */
    JsonNode call(String method, Map<String, Object> params) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonNode> reply = new CompletableFuture<>();
        pending.put(id, reply);
        ObjectNode message = JSON.createObjectNode().put("id", id).put("method", method);
        message.set("params", JSON.valueToTree(params));
        socket.sendText(JSON.writeValueAsString(message), true).get(10, TimeUnit.SECONDS);
        JsonNode answer = reply.get(30, TimeUnit.SECONDS);
        if (answer.has("error")) {
            throw new IOException(method + ": " + answer.get("error"));
        }
        return answer.get("result");
    }

    void navigate(String url) throws Exception {
        call("Page.navigate", Map.of("url", url));
    }

    /** The value of a JavaScript expression in the page (promises awaited). */
    JsonNode eval(String expression) throws Exception {
        JsonNode result = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true, "awaitPromise", true));
        if (result.has("exceptionDetails")) {
            throw new IOException(expression + " threw: " + result.get("exceptionDetails"));
        }
        return result.get("result").path("value");
    }

    /**
     * Waits until {@code expression} is true in the page. A page that reloads (as the token form
     * makes it) drops an evaluation under way: that is a look that found nothing yet, not an error.
     */
    void await(String what, String expression, Duration atMost) throws Exception {
        Instant deadline = Instant.now().plus(atMost);
        while (!evalAcrossNavigation("Boolean(" + expression + ")")) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("gave up waiting until " + what + " (" + expression + ") at "
                        + eval("location.href").asText() + "; the page:\n" + eval("document.body.innerText").asText()
                        + "\nconsole:\n" + String.join("\n", console)
                        + "\nthe document " + eval("document.readyState").asText() + "; requests answered (ms):\n" + eval(ANSWERED).asText());
            }
            Thread.sleep(100);
        }
    }

    private boolean evalAcrossNavigation(String expression) throws Exception {
        try {
            return eval(expression).asBoolean();
        } catch (IOException e) {
            if (e.getMessage().contains("navigated or closed") || e.getMessage().contains("Cannot find context")) {
                return false;
            }
            throw e;
        }
    }

    /** Clicks the middle of the first box of the first element matching {@code selector} (an inline element may wrap) with real mouse events. */
    void click(String selector) throws Exception {
        JsonNode box = eval("(() => { const e = document.querySelector(" + JSON.writeValueAsString(selector) + ");"
                + " if (!e || e.getClientRects().length === 0) return null; e.scrollIntoView(); const r = e.getClientRects()[0];"
                + " const x = r.left + r.width / 2, y = r.top + r.height / 2; const hit = document.elementFromPoint(x, y);"
                + " return {x: x, y: y, hit: hit === e || e.contains(hit), at: hit ? hit.outerHTML.substring(0, 200) : null}; })()");
        if (box.isNull() || box.isMissingNode()) {
            throw new AssertionError("nothing to click: " + selector);
        }
        if (!box.get("hit").asBoolean()) {
            throw new AssertionError(selector + " is covered at its middle by " + box.get("at"));
        }
        for (String type : List.of("mouseMoved", "mousePressed", "mouseReleased")) {
            call("Input.dispatchMouseEvent", Map.of("type", type, "x", box.get("x").asDouble(), "y", box.get("y").asDouble(),
                    "button", "left", "clickCount", 1));
        }
    }

    /** Lays the page out at {@code width} by {@code height} CSS pixels, as a window of that size would. */
    void viewport(int width, int height) throws Exception {
        call("Emulation.setDeviceMetricsOverride", Map.of("width", width, "height", height, "deviceScaleFactor", 1, "mobile", false));
    }

    /**
     * A PNG of the page as shown, {@code width} pixels wide and as tall as the document (at most
     * 3000), through the DevTools protocol's {@code Page.captureScreenshot}.
     */
    byte[] screenshot(int width) throws Exception {
        int height = Math.min(3000, eval("Math.ceil(document.documentElement.scrollHeight)").asInt());
        JsonNode shot = call("Page.captureScreenshot", Map.of("format", "png", "captureBeyondViewport", true,
                "clip", Map.of("x", 0, "y", 0, "width", width, "height", height, "scale", 1)));
        return java.util.Base64.getDecoder().decode(shot.get("data").asText());
    }

    /** A PNG of the window as it is scrolled. */
    byte[] screenshotOfWindow() throws Exception {
        return java.util.Base64.getDecoder().decode(call("Page.captureScreenshot", Map.of("format", "png")).get("data").asText());
    }

    @Override
    public void close() throws Exception {
        try {
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            // the browser goes anyway
        }
        // Its helpers (zygote, renderers, crashpad) can outlive the browser and still write into the
        // profile, which is a test's temp directory: it could then not be deleted. All of them go.
        List<ProcessHandle> helpers = process.descendants().toList();
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        for (ProcessHandle helper : helpers) {
            helper.destroyForcibly();
            try {
                helper.onExit().get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                // one that will not die is the test's temp directory's problem, said there
            }
        }
    }

    private final class Listener implements WebSocket.Listener {

        private final StringBuilder text = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                try {
                    JsonNode message = JSON.readTree(text.toString());
                    String method = message.path("method").asText();
                    if (method.equals("Runtime.exceptionThrown") || method.equals("Runtime.consoleAPICalled")) {
                        console.add(message.get("params").toString());
                    }
                    if (message.has("id")) {
                        CompletableFuture<JsonNode> reply = pending.remove(message.get("id").asInt());
                        if (reply != null) {
                            reply.complete(message);
                        }
                    }
                } catch (IOException e) {
                    pending.values().forEach(f -> f.completeExceptionally(e));
                }
                text.setLength(0);
            }
            webSocket.request(1);
            return null;
        }
    }
}
