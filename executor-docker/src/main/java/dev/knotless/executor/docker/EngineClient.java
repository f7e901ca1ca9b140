package dev.knotless.executor.docker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.executor.StopSignal;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * The Docker Engine API calls the executor makes, over {@link HttpConnection}s to one Unix socket.
 * Every call opens its own connection (a Unix socket connect costs microseconds; an exec stream
 * is hijacked anyway), so calls from several threads never share state.
 *
 * <p>Errors: a status of 400 or more becomes an {@link EngineException} carrying the daemon's
 * message; a socket that cannot be reached becomes one with status 0.
 *
 * <p>Concurrency: thread-safe; the API version is negotiated once, on first use.
 */
final class EngineClient {

    private static final Logger log = LoggerFactory.getLogger(EngineClient.class);

    /** A tar extracted by the daemon, or streamed from it. */
    static final String TAR = "application/x-tar";

    private final Path socket;
    private final ObjectMapper json;
    private volatile @Nullable ApiVersion version;

    EngineClient(Path socket, ObjectMapper json) {
        this.socket = socket;
        this.json = json;
    }

    ObjectMapper json() {
        return json;
    }

    // ---- version -------------------------------------------------------------------------------

    /** The negotiated API version: {@code min(server max, 1.44)}, never below the server's minimum. */
    ApiVersion version() throws IOException {
        ApiVersion v = version;
        if (v == null) {
            synchronized (this) {
                v = version;
                if (v == null) {
                    v = negotiate();
                    version = v;
                }
            }
        }
        return v;
    }

    private ApiVersion negotiate() throws IOException {
        ApiVersion serverMax;
        try (HttpConnection c = connect()) {
            c.writeHead("GET", "/_ping", Map.of());
            HttpConnection.Response r = c.readResponse(false);
            String header = r.header("API-Version");
            if (r.status() != 200 || header == null) {
                throw new EngineException(r.status(), "the Docker Engine at " + socket
                        + " answered /_ping with status " + r.status() + " and no API-Version header");
            }
            serverMax = ApiVersion.parse(header);
        }
        ApiVersion serverMin = serverMax;
        JsonNode info = request("GET", "/version", null);
        String min = info.path("MinAPIVersion").asText("");
        if (!min.isEmpty()) {
            serverMin = ApiVersion.parse(min);
        }
        ApiVersion chosen = ApiVersion.choose(serverMax, serverMin);
        if (chosen.compareTo(ApiVersion.OLDEST) < 0) {
            throw new EngineException(400, "the Docker Engine at " + socket + " speaks API " + serverMin + " to "
                    + serverMax + "; knotless needs " + ApiVersion.OLDEST + " or later (Docker 17.12+)");
        }
        return chosen;
    }

    // ---- requests ------------------------------------------------------------------------------

    /**
     * A request with an optional JSON body whose JSON answer (or null for an empty one) is returned.
     * {@code path} is unversioned ({@code /containers/json}); the negotiated version is prefixed.
     */
    @Nullable JsonNode call(String method, String path, @Nullable JsonNode body) throws IOException {
        return request(method, "/v" + version() + path, body);
    }

    private @Nullable JsonNode request(String method, String target, @Nullable JsonNode body) throws IOException {
        long started = System.nanoTime();
        try (HttpConnection c = connect()) {
            HttpConnection.Response r = send(c, method, target, body);
            byte[] answer = r.body().readAllBytes();
            // Each call is tens of milliseconds of a run's start-up: timed for bench/daemon-latency's breakdown.
            log.debug("engine {} {} status={} ms={}", method, target, r.status(), (System.nanoTime() - started) / 1_000_000);
            if (r.status() >= 400) {
                throw error(r.status(), answer, method, target);
            }
            return answer.length == 0 ? null : json.readTree(answer);
        }
    }

    private HttpConnection.Response send(HttpConnection c, String method, String target, @Nullable JsonNode body)
            throws IOException {
        Map<String, String> headers = new LinkedHashMap<>();
        byte[] bytes = body == null ? null : json.writeValueAsBytes(body);
        if (bytes != null) {
            headers.put("Content-Type", "application/json");
        }
        if (bytes != null || !method.equals("GET") && !method.equals("HEAD")) {
            headers.put("Content-Length", String.valueOf(bytes == null ? 0 : bytes.length));
        }
        c.writeHead(method, target, headers);
        if (bytes != null) {
            c.write(ByteBuffer.wrap(bytes));
        }
        return c.readResponse(method.equals("HEAD"));
    }

    /** Opens a connection for a streaming request; the caller writes the head and body. */
    HttpConnection connect() throws IOException {
        try {
            return HttpConnection.open(socket);
        } catch (IOException e) {
            throw new EngineException("cannot reach the Docker Engine at " + socket + ": " + e.getMessage(), e);
        }
    }

    /** The versioned target for a path. */
    String target(String path) throws IOException {
        return "/v" + version() + path;
    }

    /** Reads an error body into an {@link EngineException}; a version refusal says so plainly. */
    EngineException error(int status, byte[] body, String method, String target) {
        String message = null;
        try {
            JsonNode node = json.readTree(body);
            if (node != null && node.hasNonNull("message")) {
                message = node.get("message").asText();
            }
        } catch (IOException notJson) {
            // fall back to the text
        }
        if (message == null) {
            message = new String(body, StandardCharsets.UTF_8).strip();
            if (message.length() > 300) {
                message = message.substring(0, 297) + "...";
            }
            if (message.isEmpty()) {
                message = method + " " + target + " answered " + status;
            }
        }
        if (status == 400 && message.contains("client version")) {
            message = "Docker Engine API version mismatch at " + socket + ": " + message;
        }
        return new EngineException(status, message);
    }

    EngineException error(HttpConnection.Response r, String method, String target) throws IOException {
        return error(r.status(), r.body().readNBytes(64 * 1024), method, target);
    }

    // ---- images --------------------------------------------------------------------------------

    boolean imageExists(String image) throws IOException {
        try {
            call("GET", "/images/" + pathSegment(image) + "/json", null);
            return true;
        } catch (EngineException e) {
            if (e.isNotFound()) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Pulls an image, reading the daemon's progress stream to its end. An error in the stream
     * (the daemon answers 200 and reports failures in-band) becomes an {@link EngineException}.
     * The signal aborts the connection.
     */
    void pull(ImageRef ref, StopSignal signal) throws IOException {
        String target = target("/images/create?fromImage=" + query(ref.repository()) + "&tag=" + query(ref.tagOrDigest()));
        try (HttpConnection c = connect()) {
            c.abortOn(signal);
            c.writeHead("POST", target, Map.of("Content-Length", "0"));
            HttpConnection.Response r = c.readResponse(false);
            if (r.status() >= 400) {
                throw error(r, "POST", target);
            }
            try (MappingIterator<JsonNode> progress = json.readerFor(JsonNode.class).readValues(r.body())) {
                while (progress.hasNextValue()) {
                    JsonNode line = progress.nextValue();
                    if (line.hasNonNull("error")) {
                        throw new EngineException(500, line.get("error").asText());
                    }
                }
            } catch (JsonProcessingException e) {
                throw new IOException("unreadable pull progress from the Docker Engine: " + e.getOriginalMessage(), e);
            }
        }
    }

    // ---- containers ----------------------------------------------------------------------------

    String createContainer(String name, ObjectNode config) throws IOException {
        return call("POST", "/containers/create?name=" + query(name), config).path("Id").asText();
    }

    void startContainer(String id) throws IOException {
        call("POST", "/containers/" + id + "/start", null);
    }

    void renameContainer(String id, String name) throws IOException {
        call("POST", "/containers/" + id + "/rename?name=" + query(name), null);
    }

    /** The container's inspect document, or empty when it no longer exists. */
    Optional<JsonNode> inspectContainer(String id) throws IOException {
        try {
            return Optional.of(call("GET", "/containers/" + id + "/json", null));
        } catch (EngineException e) {
            if (e.isNotFound()) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Force-removes a container and its anonymous volumes; false when it was already gone or going. */
    boolean removeContainer(String id) throws IOException {
        try {
            call("DELETE", "/containers/" + id + "?force=true&v=true", null);
            return true;
        } catch (EngineException e) {
            if (e.isNotFound() || e.status() == 409 && String.valueOf(e.getMessage()).contains("already in progress")) {
                return false;
            }
            throw e;
        }
    }

    /** All containers (running or not) carrying the label {@code key=value}. */
    List<JsonNode> listContainers(String key, String value) throws IOException {
        ObjectNode filters = json.createObjectNode();
        filters.putArray("label").add(key + "=" + value);
        JsonNode list = call("GET", "/containers/json?all=true&filters=" + query(json.writeValueAsString(filters)), null);
        List<JsonNode> out = new ArrayList<>();
        if (list != null) {
            list.forEach(out::add);
        }
        return out;
    }

    // ---- archives ------------------------------------------------------------------------------

    /** What {@code HEAD /containers/{id}/archive} says about a path: empty when it does not exist. */
    Optional<PathStat> stat(String id, String path) throws IOException {
        String target = target("/containers/" + id + "/archive?path=" + query(path));
        try (HttpConnection c = connect()) {
            c.writeHead("HEAD", target, Map.of());
            HttpConnection.Response r = c.readResponse(true);
            if (r.status() == 404) {
                if (inspectContainer(id).isEmpty()) {
                    throw new EngineException(404, "No such container: " + id);
                }
                return Optional.empty();
            }
            if (r.status() >= 400) {
                throw new EngineException(r.status(), "cannot stat " + path + " in the run (status " + r.status() + ")");
            }
            String header = r.header("X-Docker-Container-Path-Stat");
            if (header == null) {
                return Optional.of(new PathStat(true));
            }
            JsonNode stat = json.readTree(Base64.getDecoder().decode(header.trim()));
            long mode = stat.path("mode").asLong();
            return Optional.of(new PathStat((mode & (1L << 31)) != 0));
        }
    }

    /** What a path in a container is, as far as uploads care. */
    record PathStat(boolean directory) {}

    // ---- exec ----------------------------------------------------------------------------------

    String createExec(String containerId, ObjectNode config) throws IOException {
        return call("POST", "/containers/" + containerId + "/exec", config).path("Id").asText();
    }

    /**
     * Starts an exec attached: the connection is upgraded and its {@link HttpConnection.Response#body()}
     * is the raw multiplexed stream. The caller owns the connection.
     */
    HttpConnection startExecAttached(String execId) throws IOException {
        String target = target("/exec/" + execId + "/start");
        byte[] body = "{\"Detach\":false,\"Tty\":false}".getBytes(StandardCharsets.US_ASCII);
        HttpConnection c = connect();
        try {
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("Content-Type", "application/json");
            headers.put("Connection", "Upgrade");
            headers.put("Upgrade", "tcp");
            headers.put("Content-Length", String.valueOf(body.length));
            c.writeHead("POST", target, headers);
            c.write(ByteBuffer.wrap(body));
            return c;
        } catch (IOException | RuntimeException e) {
            c.abort();
            throw e;
        }
    }

    /** Starts an exec without attaching; returns once its process has started. */
    void startExecDetached(String execId) throws IOException {
        ObjectNode body = json.createObjectNode().put("Detach", true).put("Tty", false);
        call("POST", "/exec/" + execId + "/start", body);
    }

    JsonNode inspectExec(String execId) throws IOException {
        return call("GET", "/exec/" + execId + "/json", null);
    }

    // ---- encoding ------------------------------------------------------------------------------

    static String query(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** Keeps the characters an image reference uses literally ({@code /}, {@code :}, {@code @}). */
    static String pathSegment(String value) {
        StringBuilder out = new StringBuilder();
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (c < 0x80 && (Character.isLetterOrDigit(c) || "-._~/:@".indexOf(c) >= 0)) {
                out.append(c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
                        .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
            }
        }
        return out.toString();
    }
}
