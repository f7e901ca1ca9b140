package dev.knotless.atproto.auth;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.knotless.atproto.identity.AtprotoKey;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.HttpUrl;

/**
 * A PLC directory on loopback for unit tests: {@code GET /{did}} answers the DID document of a
 * key a test registered, 404 for others. It also serves {@code /.well-known/did.json} for one
 * did:web ({@code did:web:localhost%3A{port}}), and counts the lookups of each DID.
 */
final class FakePlc implements AutoCloseable {

    private final Map<String, AtprotoKey> keys = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> lookups = new ConcurrentHashMap<>();
    private final ObjectMapper json = new ObjectMapper();
    private final HttpServer server;

    FakePlc() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    HttpUrl url() {
        return HttpUrl.get("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The did:web this server is the host of. */
    String webDid() {
        return "did:web:localhost%3A" + server.getAddress().getPort();
    }

    /** A new did:plc, not yet registered. */
    static String newPlcDid() {
        String alphabet = "abcdefghijklmnopqrstuvwxyz234567";
        SecureRandom random = new SecureRandom();
        StringBuilder b = new StringBuilder("did:plc:");
        for (int i = 0; i < 24; i++) {
            b.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    /** Serves {@code did}'s document with {@code key} as its {@code #atproto} key (replacing any: a rotation). */
    void register(String did, AtprotoKey key) {
        keys.put(did, key);
    }

    int lookups(String did) {
        AtomicInteger n = lookups.get(did);
        return n == null ? 0 : n.get();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getRawPath();
            String did = path.equals("/.well-known/did.json") ? webDid() : path.substring(1);
            lookups.computeIfAbsent(did, d -> new AtomicInteger()).incrementAndGet();
            AtprotoKey key = keys.get(did);
            if (key == null) {
                send(ex, 404, "{\"message\":\"DID not registered\"}");
                return;
            }
            ObjectNode doc = json.createObjectNode().put("id", did);
            doc.putArray("alsoKnownAs").add("at://someone.test");
            doc.putArray("verificationMethod").addObject().put("id", did + "#atproto").put("type", "Multikey")
                    .put("controller", did).put("publicKeyMultibase", key.multibase());
            doc.putArray("service").addObject().put("id", "#atproto_pds").put("type", "AtprotoPersonalDataServer")
                    .put("serviceEndpoint", "https://pds.example");
            send(ex, 200, doc.toString());
        }
    }

    private static void send(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
