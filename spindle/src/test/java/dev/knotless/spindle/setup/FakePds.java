package dev.knotless.spindle.setup;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import okhttp3.HttpUrl;

/**
 * A stand-in for PDSes in unit tests, on loopback: {@code com.atproto.repo.listRecords} (paged by
 * record key, as the real one pages) and {@code getRecord} over records kept in memory, for any
 * number of accounts, and the faults a test switches on. Not a PDS: the real one is in
 * {@code SpindleRecordsIT}.
 */
final class FakePds implements AutoCloseable {

    final ObjectMapper json = new ObjectMapper();
    /** did → collection → rkey → value. */
    private final Map<String, Map<String, NavigableMap<String, ObjectNode>>> repos = new ConcurrentHashMap<>();
    /** "nsid repo collection" of each call, in order. */
    final List<String> calls = new CopyOnWriteArrayList<>();
    /** While set, every call answers 503. */
    volatile boolean down;
    /** Accounts whose calls answer 503 (their PDS is away; others answer). */
    final Set<String> downFor = ConcurrentHashMap.newKeySet();
    /** When set, listRecords answers an empty page with a cursor, forever (a hostile server). */
    volatile boolean emptyPagesForever;
    /** Extra records listRecords serves for a (did, collection), whatever their URIs say (a hostile server). */
    final Map<String, List<ObjectNode>> smuggled = new ConcurrentHashMap<>();

    /** DID documents served as a PLC directory serves them ({@code GET /DID}), by DID. */
    final Map<String, String> plc = new ConcurrentHashMap<>();
    /** DIDs asked of the PLC side, in order. */
    final List<String> resolved = new CopyOnWriteArrayList<>();

    private final HttpServer server;

    FakePds() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/xrpc/", this::handle);
        server.createContext("/", this::document);
        server.setExecutor(Executors.newFixedThreadPool(2));
        server.start();
    }

    HttpUrl url() {
        return HttpUrl.get("http://127.0.0.1:" + server.getAddress().getPort());
    }

    void put(String did, String collection, String rkey, ObjectNode value) {
        repos.computeIfAbsent(did, d -> new ConcurrentHashMap<>())
                .computeIfAbsent(collection, c -> new ConcurrentSkipListMap<>()).put(rkey, value);
    }

    void delete(String did, String collection, String rkey) {
        repos.getOrDefault(did, Map.of()).getOrDefault(collection, new ConcurrentSkipListMap<>()).remove(rkey);
    }

    /** The calls made for {@code did}'s repository. */
    long callsFor(String did) {
        return calls.stream().filter(c -> c.split(" ")[1].equals(did)).count();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String nsid = ex.getRequestURI().getPath().substring("/xrpc/".length());
            Map<String, String> q = query(ex.getRequestURI().getRawQuery());
            String did = q.getOrDefault("repo", "");
            String collection = q.getOrDefault("collection", "");
            calls.add(nsid + " " + did + " " + collection);
            if (down || downFor.contains(did)) {
                send(ex, 503, error("ServiceUnavailable", "down for a test"));
                return;
            }
            NavigableMap<String, ObjectNode> records = repos.getOrDefault(did, Map.of())
                    .getOrDefault(collection, new ConcurrentSkipListMap<>());
            switch (nsid) {
                case "com.atproto.repo.listRecords" -> {
                    ObjectNode out = json.createObjectNode();
                    ArrayNode list = out.putArray("records");
                    if (emptyPagesForever) {
                        out.put("cursor", "more");
                        send(ex, 200, out);
                        return;
                    }
                    int limit = Integer.parseInt(q.getOrDefault("limit", "50"));
                    String after = q.get("cursor");
                    NavigableMap<String, ObjectNode> page = after == null ? records : records.tailMap(after, false);
                    String last = null;
                    for (Map.Entry<String, ObjectNode> e : page.entrySet()) {
                        if (list.size() == limit) {
                            break;
                        }
                        list.add(stored(did, collection, e.getKey(), e.getValue()));
                        last = e.getKey();
                    }
                    if (after == null) {
                        smuggled.getOrDefault(did + " " + collection, List.of()).forEach(list::add);
                    }
                    if (last != null && !records.tailMap(last, false).isEmpty()) {
                        out.put("cursor", last);
                    }
                    send(ex, 200, out);
                }
                case "com.atproto.repo.getRecord" -> {
                    ObjectNode value = records.get(q.getOrDefault("rkey", ""));
                    if (value == null) {
                        send(ex, 400, error("RecordNotFound", "Could not locate record"));
                        return;
                    }
                    send(ex, 200, stored(did, collection, q.get("rkey"), value));
                }
                default -> send(ex, 501, error("MethodNotImplemented", "not in the fake: " + nsid));
            }
        }
    }

    /** Serves {@code did}'s document naming {@code pds} as its PDS, with a secp256k1 key as the reference PLC writes one. */
    void document(String did, HttpUrl pds) {
        plc.put(did, """
                {"id":"%s","alsoKnownAs":["at://someone.test"],
                 "verificationMethod":[{"id":"#atproto","type":"EcdsaSecp256k1VerificationKey2019","controller":"%s",
                   "publicKeyMultibase":"zMsqnaYbyoQfZ52PCrbnkUoVasMNgz75dL5cREVcuwYTgVPoewED1dQNQx52vrcifv6up1dnU3VWmvGomW3Yzq5AV"}],
                 "service":[{"id":"#atproto_pds","type":"AtprotoPersonalDataServer","serviceEndpoint":"%s"}]}
                """.formatted(did, did, pds.toString().replaceAll("/$", "")));
    }

    private void document(HttpExchange ex) throws IOException {
        try (ex) {
            String did = ex.getRequestURI().getPath().substring(1);
            resolved.add(did);
            String doc = plc.get(did);
            byte[] b = (doc == null ? "{\"message\":\"DID not registered\"}" : doc).getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(doc == null ? 404 : 200, b.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(b);
            }
        }
    }

    ObjectNode stored(String did, String collection, String rkey, ObjectNode value) {
        ObjectNode r = json.createObjectNode().put("uri", "at://" + did + "/" + collection + "/" + rkey).put("cid", "bafyfake" + rkey.hashCode());
        r.set("value", value);
        return r;
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> q = new HashMap<>();
        if (raw == null) {
            return q;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            q.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return q;
    }

    private ObjectNode error(String name, String message) {
        return json.createObjectNode().put("error", name).put("message", message);
    }

    private void send(HttpExchange ex, int status, ObjectNode body) throws IOException {
        byte[] b = json.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        ((ExecutorService) server.getExecutor()).shutdownNow();
    }
}
