package dev.knotless.atproto;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.HttpUrl;

/**
 * A stand-in for a PDS in unit tests, on loopback: just the calls the publisher makes, records
 * kept in memory, and faults a test can switch on (the PDS answering 503, or a token it calls
 * expired). It is not a PDS: the real one is exercised by the ITs (scripts/pds).
 */
final class FakePds implements AutoCloseable {

    static final String DID = "did:plc:fakefakefakefake";
    static final String PASSWORD = "app-pass-word-1234";

    final Map<String, ObjectNode> records = new ConcurrentHashMap<>();
    final Map<String, byte[]> blobs = new ConcurrentHashMap<>();
    /** Methods called, in order ("com.atproto.repo.putRecord", …). */
    final List<String> calls = new CopyOnWriteArrayList<>();
    /** Puts answered with 503 before one succeeds. */
    final AtomicInteger failPuts = new AtomicInteger();
    /** Puts that stored a record. */
    final AtomicInteger storedPuts = new AtomicInteger();
    /** While set, puts answer 400 InvalidRequest (the PDS refuses the record). */
    volatile boolean refusePuts;
    /** While set, every call answers 503 (the PDS is away). */
    volatile boolean down;
    /** While set, every call waits until it is counted down (at most 10 minutes) before answering: a PDS that takes calls and answers none. */
    volatile java.util.concurrent.CountDownLatch held;
    /** The access token the fake accepts; others are "ExpiredToken". */
    volatile String validAccess = "access-1";
    volatile boolean refreshAllowed = true;
    /** When set, createSession's error message echoes the password it was sent (a careless server). */
    volatile boolean echoPassword;
    /** When set, getRecord answers with this many bytes of JSON padding (a hostile server). */
    volatile int hugeAnswerBytes;

    private final AtomicInteger tokens = new AtomicInteger(1);
    private final ObjectMapper json = new ObjectMapper();
    private final HttpServer server;

    FakePds() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/xrpc/", this::handle);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.start();
    }

    HttpUrl url() {
        return HttpUrl.get("http://127.0.0.1:" + server.getAddress().getPort());
    }

    int puts() {
        return (int) calls.stream().filter("com.atproto.repo.putRecord"::equals).count();
    }

    private void handle(HttpExchange ex) throws IOException {
        String nsid = ex.getRequestURI().getPath().substring("/xrpc/".length());
        calls.add(nsid);
        byte[] body = ex.getRequestBody().readAllBytes();
        try {
            java.util.concurrent.CountDownLatch hold = held;
            if (hold != null) {
                try {
                    hold.await(10, java.util.concurrent.TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            if (down) {
                send(ex, 503, error("ServiceUnavailable", "down for a test"));
                return;
            }
            switch (nsid) {
                case "com.atproto.server.createSession" -> {
                    JsonNode in = json.readTree(body);
                    if (!PASSWORD.equals(in.path("password").asText())) {
                        send(ex, 401, error("AuthenticationRequired", echoPassword
                                ? "Invalid identifier or password: " + in.path("password").asText()
                                : "Invalid identifier or password"));
                        return;
                    }
                    send(ex, 200, session());
                }
                case "com.atproto.server.refreshSession" -> {
                    if (!refreshAllowed) {
                        send(ex, 400, error("ExpiredToken", "Token has expired"));
                        return;
                    }
                    send(ex, 200, session());
                }
                case "com.atproto.repo.putRecord" -> {
                    if (!authorised(ex)) {
                        return;
                    }
                    if (failPuts.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                        send(ex, 503, error(null, null));
                        return;
                    }
                    if (refusePuts) {
                        send(ex, 400, error("InvalidRequest", "Invalid record"));
                        return;
                    }
                    JsonNode in = json.readTree(body);
                    storedPuts.incrementAndGet();
                    String key = in.path("collection").asText() + "/" + in.path("rkey").asText();
                    records.put(key, (ObjectNode) in.get("record"));
                    send(ex, 200, json.createObjectNode().put("uri", "at://" + DID + "/" + key).put("cid", "bafyfake"));
                }
                case "com.atproto.repo.uploadBlob" -> {
                    if (!authorised(ex)) {
                        return;
                    }
                    String cid = "bafk" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body)).substring(0, 20);
                    blobs.put(cid, body);
                    ObjectNode blob = json.createObjectNode().put("$type", "blob");
                    blob.putObject("ref").put("$link", cid);
                    blob.put("mimeType", ex.getRequestHeaders().getFirst("Content-Type")).put("size", body.length);
                    ObjectNode out = json.createObjectNode();
                    out.set("blob", blob);
                    send(ex, 200, out);
                }
                case "com.atproto.repo.getRecord" -> {
                    if (hugeAnswerBytes > 0) {
                        send(ex, 200, json.createObjectNode().put("pad", "x".repeat(hugeAnswerBytes)));
                        return;
                    }
                    send(ex, 400, error("RecordNotFound", "Could not locate record"));
                }
                default -> send(ex, 501, error("MethodNotImplemented", "not in the fake: " + nsid));
            }
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        } finally {
            ex.close();
        }
    }

    private boolean authorised(HttpExchange ex) throws IOException {
        String auth = ex.getRequestHeaders().getFirst("Authorization");
        if (auth == null || !auth.equals("Bearer " + validAccess)) {
            send(ex, 400, error("ExpiredToken", "Token has expired"));
            return false;
        }
        return true;
    }

    /** Makes the current access token expire: the next authenticated call is refused. */
    void expireAccessToken() {
        validAccess = "access-expired-" + tokens.incrementAndGet();
    }

    private ObjectNode session() {
        String access = "access-" + tokens.incrementAndGet();
        validAccess = access;
        return json.createObjectNode().put("did", DID).put("handle", "runner.test")
                .put("accessJwt", access).put("refreshJwt", "refresh-" + access);
    }

    private ObjectNode error(String name, String message) {
        ObjectNode n = json.createObjectNode();
        if (name != null) {
            n.put("error", name);
        }
        if (message != null) {
            n.put("message", message);
        }
        return n;
    }

    private void send(HttpExchange ex, int status, JsonNode body) throws IOException {
        byte[] b = json.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
