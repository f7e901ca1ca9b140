package dev.knotless.atproto.xrpc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.jspecify.annotations.Nullable;

/**
 * The XRPC calls the runner makes to its PDS: logging in, writing, reading and listing records,
 * uploading and fetching blobs.
 *
 * <p>Every answer is read with a bound ({@link #MAX_JSON_BYTES}, or the caller's for blobs): the
 * server is not trusted to keep its answers small. Every failure is one {@link IOException} with a
 * one-line message naming the method and the server; {@link XrpcException} when the server
 * answered with an error. Neither the password nor a token is ever put in a message.
 *
 * <p>Sessions: the first authenticated call logs in ({@code createSession}); when the server says
 * the access token expired (or no longer knows it), the client refreshes it ({@code
 * refreshSession}), and logs in again if the refresh token is refused too, then repeats the call
 * once.
 *
 * <p>Thread-safe: the session is swapped under a lock; OkHttp is thread-safe.
 */
public final class XrpcClient {

    /** The most a JSON answer may hold. A {@code listRecords} page of 100 check records fits easily. */
    public static final long MAX_JSON_BYTES = 8L << 20;
    private static final int MESSAGE_CAP = 200;
    private static final MediaType JSON = MediaType.get("application/json");

    private final OkHttpClient http;
    private final HttpUrl service;
    private final @Nullable Identity identity;
    private final ObjectMapper json;

    /* @GuardedBy("this") */
    private @Nullable Session session;

    /**
     * @param service the PDS, such as {@code http://127.0.0.1:2583}
     * @param identity who to log in as; null for a client that only reads public data
     */
    public XrpcClient(OkHttpClient http, HttpUrl service, @Nullable Identity identity, ObjectMapper json) {
        this.http = Objects.requireNonNull(http, "http");
        this.service = Objects.requireNonNull(service, "service");
        this.identity = identity;
        this.json = Objects.requireNonNull(json, "json");
    }

    /** The PDS this client talks to. */
    public HttpUrl service() {
        return service;
    }

    /** The current session, logging in first if there is none. */
    public Session session() throws IOException {
        synchronized (this) {
            if (session != null) {
                return session;
            }
        }
        return login();
    }

    /** Logs in afresh ({@code com.atproto.server.createSession}). */
    public Session login() throws IOException {
        if (identity == null) {
            throw new IOException("com.atproto.server.createSession at " + service + ": this client has no identity");
        }
        ObjectNode body = json.createObjectNode().put("identifier", identity.identifier()).put("password", identity.password());
        Request request = new Request.Builder().url(method("com.atproto.server.createSession"))
                .post(RequestBody.create(bytes(body), JSON)).build();
        JsonNode answer;
        try {
            answer = execute("com.atproto.server.createSession", request);
        } catch (XrpcException e) {
            // A server could echo what it was sent; the password must not reach a log line.
            throw new XrpcException(scrub(e.getMessage()), e.status(), e.error());
        } catch (IOException e) {
            throw new IOException(scrub(e.getMessage()), e);
        }
        Session s = sessionFrom("com.atproto.server.createSession", answer);
        synchronized (this) {
            session = s;
        }
        return s;
    }

    /** Puts {@code record} at {@code collection/rkey} in {@code repo}: created, or replaced. */
    public Records.Written putRecord(String repo, String collection, String rkey, ObjectNode record) throws IOException {
        ObjectNode body = json.createObjectNode().put("repo", repo).put("collection", collection).put("rkey", rkey);
        body.set("record", record);
        JsonNode answer = authed("com.atproto.repo.putRecord",
                b -> b.url(method("com.atproto.repo.putRecord")).post(RequestBody.create(bytes(body), JSON)));
        return new Records.Written(text(answer, "uri", "com.atproto.repo.putRecord"), text(answer, "cid", "com.atproto.repo.putRecord"));
    }

    /** The record at {@code collection/rkey} in {@code repo}, or empty when there is none. */
    public Optional<Records.Stored> getRecord(String repo, String collection, String rkey) throws IOException {
        HttpUrl url = method("com.atproto.repo.getRecord").newBuilder()
                .addQueryParameter("repo", repo).addQueryParameter("collection", collection).addQueryParameter("rkey", rkey)
                .build();
        try {
            return Optional.of(stored("com.atproto.repo.getRecord", execute("com.atproto.repo.getRecord",
                    new Request.Builder().url(url).get().build())));
        } catch (XrpcException e) {
            if ("RecordNotFound".equals(e.error())) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** One page of the records of {@code collection} in {@code repo}; {@code cursor} from the last page, or null. */
    public Records.Page listRecords(String repo, String collection, int limit, @Nullable String cursor) throws IOException {
        HttpUrl.Builder url = method("com.atproto.repo.listRecords").newBuilder()
                .addQueryParameter("repo", repo).addQueryParameter("collection", collection)
                .addQueryParameter("limit", Integer.toString(limit));
        if (cursor != null) {
            url.addQueryParameter("cursor", cursor);
        }
        JsonNode answer = execute("com.atproto.repo.listRecords", new Request.Builder().url(url.build()).get().build());
        List<Records.Stored> records = new ArrayList<>();
        for (JsonNode r : answer.path("records")) {
            records.add(stored("com.atproto.repo.listRecords", r));
        }
        JsonNode next = answer.get("cursor");
        return new Records.Page(records, next == null || next.isNull() ? null : next.asText());
    }

    /**
     * Uploads {@code file} as a blob ({@code com.atproto.repo.uploadBlob}).
     *
     * @param maxBytes a larger file is refused before anything is sent
     */
    public Records.Blob uploadBlob(Path file, String mimeType, long maxBytes) throws IOException {
        long size = Files.size(file);
        if (size > maxBytes) {
            throw new IOException("com.atproto.repo.uploadBlob: " + file.getFileName() + " holds " + size
                    + " bytes, over the " + maxBytes + " a blob may hold");
        }
        MediaType type = MediaType.get(mimeType);
        JsonNode answer = authed("com.atproto.repo.uploadBlob",
                b -> b.url(method("com.atproto.repo.uploadBlob")).post(RequestBody.create(file.toFile(), type)));
        JsonNode blob = answer.get("blob");
        if (blob == null || !blob.isObject() || blob.path("ref").path("$link").asText().isEmpty()) {
            throw new XrpcException("com.atproto.repo.uploadBlob at " + service + ": the answer holds no blob", 0, null);
        }
        return new Records.Blob(blob);
    }

    /** The bytes of blob {@code cid} in {@code did}'s repository ({@code com.atproto.sync.getBlob}), at most {@code maxBytes}. */
    public byte[] getBlob(String did, String cid, long maxBytes) throws IOException {
        HttpUrl url = method("com.atproto.sync.getBlob").newBuilder()
                .addQueryParameter("did", did).addQueryParameter("cid", cid).build();
        try (Response response = call("com.atproto.sync.getBlob", new Request.Builder().url(url).get().build())) {
            if (!response.isSuccessful()) {
                throw failure("com.atproto.sync.getBlob", response);
            }
            return readBounded("com.atproto.sync.getBlob", response.body(), maxBytes);
        }
    }

    /** A query ({@code GET}) this class has no wrapper for, with its parameters; unauthenticated. */
    public JsonNode query(String nsid, java.util.Map<String, String> parameters) throws IOException {
        HttpUrl.Builder url = method(nsid).newBuilder();
        parameters.forEach(url::addQueryParameter);
        return execute(nsid, new Request.Builder().url(url.build()).get().build());
    }

    /**
     * The proof of one record ({@code com.atproto.sync.getRecord}): a CAR file holding the signed
     * commit, the MST nodes on the path to the record and the record, at most {@code maxBytes}.
     * Read as bytes: checking it is the caller's.
     */
    public byte[] getRecordProof(String did, String collection, String rkey, long maxBytes) throws IOException {
        HttpUrl url = method("com.atproto.sync.getRecord").newBuilder()
                .addQueryParameter("did", did).addQueryParameter("collection", collection).addQueryParameter("rkey", rkey)
                .build();
        try (Response response = call("com.atproto.sync.getRecord", new Request.Builder().url(url).get().build())) {
            if (!response.isSuccessful()) {
                throw failure("com.atproto.sync.getRecord", response);
            }
            return readBounded("com.atproto.sync.getRecord", response.body(), maxBytes);
        }
    }

    /**
     * Any call that answers JSON, for methods this class has no wrapper for (creating accounts in
     * tests, for one). Sent with the session's token when {@code authenticated}.
     */
    public JsonNode procedure(String nsid, ObjectNode input, boolean authenticated) throws IOException {
        if (authenticated) {
            return authed(nsid, b -> b.url(method(nsid)).post(RequestBody.create(bytes(input), JSON)));
        }
        return execute(nsid, new Request.Builder().url(method(nsid)).post(RequestBody.create(bytes(input), JSON)).build());
    }

    // --- sessions -----------------------------------------------------------------------------

    @FunctionalInterface
    private interface RequestShape {
        Request.Builder shape(Request.Builder b) throws IOException;
    }

    private JsonNode authed(String nsid, RequestShape shape) throws IOException {
        Session s = session();
        try {
            return execute(nsid, shape.shape(new Request.Builder()).header("Authorization", "Bearer " + s.accessJwt()).build());
        } catch (XrpcException e) {
            if (!tokenRefused(e)) {
                throw e;
            }
        }
        Session renewed = renew(s);
        return execute(nsid, shape.shape(new Request.Builder()).header("Authorization", "Bearer " + renewed.accessJwt()).build());
    }

    /** Expired, or unknown to the server (it restarted with other secrets, or revoked it). */
    private static boolean tokenRefused(XrpcException e) {
        return "ExpiredToken".equals(e.error()) || "InvalidToken".equals(e.error())
                || (e.status() == 401 && e.error() == null);
    }

    /** A new session after {@code stale} was refused: refreshed if the server allows, else a new login. */
    private Session renew(Session stale) throws IOException {
        synchronized (this) {
            if (session != null && session != stale) {
                return session; // another thread renewed it meanwhile
            }
        }
        Request request = new Request.Builder().url(method("com.atproto.server.refreshSession"))
                .post(RequestBody.create(new byte[0], null))
                .header("Authorization", "Bearer " + stale.refreshJwt()).build();
        try {
            Session s = sessionFrom("com.atproto.server.refreshSession", execute("com.atproto.server.refreshSession", request));
            synchronized (this) {
                session = s;
            }
            return s;
        } catch (XrpcException e) {
            if (e.retryable()) {
                throw e;
            }
            return login();
        }
    }

    private Session sessionFrom(String nsid, JsonNode answer) throws IOException {
        return new Session(text(answer, "did", nsid), answer.path("handle").asText(""), text(answer, "accessJwt", nsid),
                text(answer, "refreshJwt", nsid));
    }

    // --- the wire -----------------------------------------------------------------------------

    private HttpUrl method(String nsid) {
        return service.newBuilder().addPathSegment("xrpc").addPathSegment(nsid).build();
    }

    private Response call(String nsid, Request request) throws IOException {
        try {
            return http.newCall(request).execute();
        } catch (IOException e) {
            throw new IOException(nsid + " at " + service + ": " + OneLine.ofUntrusted(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage(), MESSAGE_CAP), e);
        }
    }

    private JsonNode execute(String nsid, Request request) throws IOException {
        try (Response response = call(nsid, request)) {
            if (!response.isSuccessful()) {
                throw failure(nsid, response);
            }
            byte[] body = readBounded(nsid, response.body(), MAX_JSON_BYTES);
            try {
                JsonNode node = json.readTree(body);
                if (node == null || !node.isObject()) {
                    throw new XrpcException(nsid + " at " + service + ": the answer is not a JSON object", 0, null);
                }
                return node;
            } catch (JsonProcessingException e) {
                throw new XrpcException(nsid + " at " + service + ": the answer is not JSON", 0, null);
            }
        }
    }

    /** An error answer: {@code {"error": name, "message": text}} when it is XRPC's, else the status alone. */
    private XrpcException failure(String nsid, Response response) {
        String error = null;
        String message = null;
        try {
            JsonNode node = json.readTree(readBounded(nsid, response.body(), 64 << 10));
            if (node != null && node.isObject()) {
                error = node.path("error").isTextual() ? OneLine.ofUntrusted(node.get("error").asText(), MESSAGE_CAP) : null;
                message = node.path("message").isTextual() ? OneLine.ofUntrusted(node.get("message").asText(), MESSAGE_CAP) : null;
            }
        } catch (IOException | RuntimeException e) {
            // Not XRPC's error shape (a proxy's page, a cut answer): the status says enough.
        }
        StringBuilder m = new StringBuilder(nsid).append(" at ").append(service).append(": HTTP ").append(response.code());
        if (error != null) {
            m.append(' ').append(error);
        }
        if (message != null && !message.isEmpty()) {
            m.append(": ").append(message);
        }
        return new XrpcException(m.toString(), response.code(), error);
    }

    private byte[] readBounded(String nsid, ResponseBody body, long max) throws IOException {
        long declared = body.contentLength();
        if (declared > max) {
            throw new XrpcException(nsid + " at " + service + ": the answer says " + declared + " bytes, over the " + max + " read", 0, null);
        }
        try (InputStream in = body.byteStream()) {
            byte[] b = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, max + 1));
            if (b.length > max) {
                throw new XrpcException(nsid + " at " + service + ": the answer holds over " + max + " bytes", 0, null);
            }
            return b;
        }
    }

    private Records.Stored stored(String nsid, JsonNode node) throws IOException {
        JsonNode value = node.get("value");
        if (value == null || !value.isObject()) {
            throw new XrpcException(nsid + " at " + service + ": a record without a value", 0, null);
        }
        JsonNode cid = node.get("cid");
        return new Records.Stored(text(node, "uri", nsid), cid == null || cid.isNull() ? null : cid.asText(), (ObjectNode) value);
    }

    private String text(JsonNode node, String field, String nsid) throws XrpcException {
        JsonNode v = node.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new XrpcException(nsid + " at " + service + ": the answer has no " + field, 0, null);
        }
        return v.asText();
    }

    private byte[] bytes(JsonNode node) throws IOException {
        return json.writeValueAsBytes(node);
    }

    private String scrub(@Nullable String message) {
        if (message == null) {
            return "";
        }
        return identity == null ? message : message.replace(identity.password(), "<password>");
    }

}
