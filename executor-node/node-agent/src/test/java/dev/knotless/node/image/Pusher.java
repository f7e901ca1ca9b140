package dev.knotless.node.image;

import dev.knotless.registry.Digest;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/** Pushes blobs and manifests over the distribution API, as {@code docker push} does. */
final class Pusher {

    static final String LAYER_GZIP = "application/vnd.oci.image.layer.v1.tar+gzip";
    static final String LAYER_ZSTD = "application/vnd.oci.image.layer.v1.tar+zstd";
    static final String LAYER_TAR = "application/vnd.oci.image.layer.v1.tar";
    static final ObjectMapper JSON = new ObjectMapper();

    private final OkHttpClient http = new OkHttpClient();
    private final String base;
    private final String repository;
    private final String authorization;

    Pusher(String host, String repository, String authorization) {
        this.base = "http://" + host;
        this.repository = repository;
        this.authorization = authorization;
    }

    Descriptor blob(String mediaType, byte[] bytes) throws IOException {
        Digest digest = Digest.of(bytes);
        String location;
        try (Response r = call(new Request.Builder().url(base + "/v2/" + repository + "/blobs/uploads/")
                .post(RequestBody.create(new byte[0])))) {
            expect(r, 202);
            location = r.header("Location");
        }
        HttpUrl url = HttpUrl.get(base).resolve(location).newBuilder().addQueryParameter("digest", digest.toString()).build();
        try (Response r = call(new Request.Builder().url(url)
                .put(RequestBody.create(bytes, MediaType.get("application/octet-stream"))))) {
            expect(r, 201);
        }
        return new Descriptor(mediaType, digest, bytes.length);
    }

    /** Pushes an image manifest for these layers with a config of this Cmd/Env; returns its digest. */
    Descriptor image(List<Descriptor> layers, List<String> cmd, List<String> env) throws IOException {
        ObjectNode config = JSON.createObjectNode();
        config.put("architecture", "amd64").put("os", "linux");
        ObjectNode process = config.putObject("config");
        env.forEach(process.putArray("Env")::add);
        cmd.forEach(process.putArray("Cmd")::add);
        process.put("WorkingDir", "/work");
        ObjectNode rootfs = config.putObject("rootfs").put("type", "layers");
        rootfs.putArray("diff_ids");
        Descriptor configBlob = blob("application/vnd.oci.image.config.v1+json", JSON.writeValueAsBytes(config));
        ObjectNode manifest = JSON.createObjectNode();
        manifest.put("schemaVersion", 2).put("mediaType", Manifests.OCI_MANIFEST);
        manifest.set("config", descriptor(configBlob));
        ArrayNode list = manifest.putArray("layers");
        layers.forEach(l -> list.add(descriptor(l)));
        return manifest(Manifests.OCI_MANIFEST, JSON.writeValueAsBytes(manifest));
    }

    /** Pushes an OCI index with these (manifest, architecture) entries, all linux. */
    Descriptor index(List<Descriptor> manifests, List<String> architectures) throws IOException {
        ObjectNode index = JSON.createObjectNode();
        index.put("schemaVersion", 2).put("mediaType", Manifests.OCI_INDEX);
        ArrayNode list = index.putArray("manifests");
        for (int i = 0; i < manifests.size(); i++) {
            ObjectNode entry = descriptor(manifests.get(i));
            entry.putObject("platform").put("os", "linux").put("architecture", architectures.get(i));
            list.add(entry);
        }
        return manifest(Manifests.OCI_INDEX, JSON.writeValueAsBytes(index));
    }

    Descriptor manifest(String mediaType, byte[] bytes) throws IOException {
        Digest digest = Digest.of(bytes);
        try (Response r = call(new Request.Builder().url(base + "/v2/" + repository + "/manifests/" + digest)
                .put(RequestBody.create(bytes, MediaType.get(mediaType))))) {
            expect(r, 201);
        }
        return new Descriptor(mediaType, digest, bytes.length);
    }

    /** Names the pushed {@code manifest} by {@code tag} too (its bytes read back and put again under the tag). */
    void tag(Descriptor manifest, String tag) throws IOException {
        byte[] bytes;
        try (Response r = call(new Request.Builder().url(base + "/v2/" + repository + "/manifests/" + manifest.digest())
                .header("Accept", manifest.mediaType()))) {
            expect(r, 200);
            bytes = r.body().bytes();
        }
        try (Response r = call(new Request.Builder().url(base + "/v2/" + repository + "/manifests/" + tag)
                .put(RequestBody.create(bytes, MediaType.get(manifest.mediaType()))))) {
            expect(r, 201);
        }
    }

    private Response call(Request.Builder request) throws IOException {
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.newCall(request.build()).execute();
    }

    private static ObjectNode descriptor(Descriptor d) {
        ObjectNode node = JSON.createObjectNode();
        node.put("mediaType", d.mediaType()).put("digest", d.digest().toString()).put("size", d.size());
        return node;
    }

    private static void expect(Response r, int code) throws IOException {
        if (r.code() != code) {
            throw new IOException("registry answered " + r.code() + " to " + r.request().method() + " "
                    + r.request().url() + ": " + new String(r.body().bytes(), StandardCharsets.UTF_8));
        }
    }
}
