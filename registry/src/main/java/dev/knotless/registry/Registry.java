package dev.knotless.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * A client for the OCI distribution API v2: manifests and blobs by digest, anonymous or with
 * credentials. On a 401 it answers the registry's challenge once: {@code Bearer} by fetching a
 * token from the named realm (with the credentials as Basic auth when there are any), {@code Basic}
 * by sending the credentials. Tokens are kept per registry and repository for the client's life.
 */
public final class Registry {

    public static final long MAX_MANIFEST_BYTES = 4L * 1024 * 1024;
    private static final Pattern PARAM = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    private final OkHttpClient http;
    private final Optional<Credentials> credentials;
    private final Set<String> plainHttpRegistries;
    private final Map<String, String> authorizations = new ConcurrentHashMap<>();

    /**
     * The client the agent uses: bounded waits, and no redirect that changes scheme, so HTTPS never
     * falls back to HTTP. Blob redirects to storage hosts are followed; OkHttp drops the
     * Authorization header when the host changes.
     */
    public static OkHttpClient defaultClient() {
        return new OkHttpClient.Builder()
                .connectTimeout(Duration.ofSeconds(30))
                .readTimeout(Duration.ofSeconds(60))
                .followSslRedirects(false)
                .build();
    }

    public Registry(OkHttpClient http, Optional<Credentials> credentials) {
        this(http, credentials, Set.of());
    }

    /**
     * @param plainHttpRegistries registries ({@code host[:port]}) spoken to over plain HTTP though
     *                            not on loopback; they, and token realms on them, get credentials in
     *                            clear (see {@link ImageReference#plainHttp})
     */
    public Registry(OkHttpClient http, Optional<Credentials> credentials, Set<String> plainHttpRegistries) {
        for (String r : plainHttpRegistries) {
            if (!ImageReference.isRegistryHost(r)) {
                throw new IllegalArgumentException("bad plain-HTTP registry '" + r + "': want HOST[:PORT]");
            }
        }
        this.http = http;
        this.credentials = credentials;
        this.plainHttpRegistries = Set.copyOf(plainHttpRegistries);
    }

    /** Where a request goes: a repository of a registry, at its base URL. */
    private record Repo(String registry, String repository, String base) {
        static Repo of(ImageReference image, Set<String> plainHttp) {
            return new Repo(image.registry(), image.repository(), image.baseUrl(plainHttp));
        }

        static Repo of(ImageName name, Set<String> plainHttp) {
            return new Repo(name.registry(), name.repository(), ImageReference.baseUrl(name.registry(), plainHttp));
        }

        @Override
        public String toString() {
            return registry + "/" + repository;
        }
    }

    /**
     * The digest of the manifest {@code name}'s tag names now (an index or list when the image has
     * one, as a pull by tag resolves it): the registry's {@code Docker-Content-Digest} of a {@code
     * HEAD}, or, when it sends none, the digest of the manifest a {@code GET} returns (at most
     * {@value #MAX_MANIFEST_BYTES} bytes).
     */
    public Digest digestOf(ImageName name) throws ImageException {
        Repo repo = Repo.of(name, plainHttpRegistries);
        String url = repo.base() + "/v2/" + name.repository() + "/manifests/" + name.tag();
        try {
            try (Response head = send(repo, new Request.Builder().url(url).head().header("Accept", ManifestTypes.ACCEPT))) {
                check(head, repo, "tag " + name.tag());
                String said = head.header("Docker-Content-Digest");
                if (said != null) {
                    try {
                        return Digest.parse(said);
                    } catch (IllegalArgumentException e) {
                        // not a sha256 digest: work it out from the manifest itself
                    }
                }
            }
            try (Response get = send(repo, new Request.Builder().url(url).header("Accept", ManifestTypes.ACCEPT))) {
                check(get, repo, "tag " + name.tag());
                return Digest.of(readAtMost(get.body().byteStream(), MAX_MANIFEST_BYTES, "the manifest of tag " + name.tag()));
            }
        } catch (IOException e) {
            throw unreachable(repo, e);
        }
    }

    /** The manifest {@code digest} of {@code image}'s repository; its bytes are verified against the digest. */
    public byte[] manifest(ImageReference image, Digest digest) throws ImageException {
        Repo repo = Repo.of(image, plainHttpRegistries);
        String url = repo.base() + "/v2/" + image.repository() + "/manifests/" + digest;
        try (Response response = send(repo, new Request.Builder().url(url).header("Accept", ManifestTypes.ACCEPT))) {
            check(response, repo, "manifest " + digest);
            long declared = response.body().contentLength();
            if (declared > MAX_MANIFEST_BYTES) {
                throw new ImageException("manifest " + digest + " of " + image + " is larger than "
                        + MAX_MANIFEST_BYTES + " bytes; refused");
            }
            byte[] bytes = readAtMost(response.body().byteStream(), MAX_MANIFEST_BYTES, "manifest " + digest);
            Digest actual = Digest.of(bytes);
            if (!actual.equals(digest)) {
                throw new ImageException("manifest " + digest + " of " + image.registry() + "/" + image.repository()
                        + " does not match its digest (the registry sent " + actual + "); refused");
            }
            return bytes;
        } catch (IOException e) {
            throw unreachable(repo, e);
        }
    }

    /** Opens blob {@code digest}; the caller verifies what it reads and closes the stream. */
    public InputStream blob(ImageReference image, Digest digest, String what) throws ImageException {
        Repo repo = Repo.of(image, plainHttpRegistries);
        String url = repo.base() + "/v2/" + image.repository() + "/blobs/" + digest;
        Response response;
        try {
            response = send(repo, new Request.Builder().url(url));
        } catch (IOException e) {
            throw unreachable(repo, e);
        }
        try {
            check(response, repo, what + " " + digest);
        } catch (ImageException e) {
            response.close();
            throw e;
        }
        return response.body().byteStream();
    }

    private Response send(Repo image, Request.Builder request) throws IOException, ImageException {
        String key = image.toString();
        String authorization = authorizations.get(key);
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        Response response = http.newCall(request.build()).execute();
        if (response.code() != 401) {
            return response;
        }
        String challenge = response.header("WWW-Authenticate", "");
        response.close();
        authorization = answer(image, challenge);
        authorizations.put(key, authorization);
        return http.newCall(request.header("Authorization", authorization).build()).execute();
    }

    private String answer(Repo image, String challenge) throws IOException, ImageException {
        String scheme = challenge.split(" ", 2)[0];
        if (scheme.equalsIgnoreCase("Basic")) {
            Credentials c = credentials.orElseThrow(() -> new ImageException("registry " + image.registry()
                    + " wants credentials for " + image.repository() + " and none are configured"));
            return okhttp3.Credentials.basic(c.username(), c.password());
        }
        if (!scheme.equalsIgnoreCase("Bearer")) {
            throw new ImageException("registry " + image.registry() + " answered 401 with an unsupported challenge '"
                    + scheme + "'");
        }
        Map<String, String> params = new LinkedHashMap<>();
        Matcher m = PARAM.matcher(challenge);
        while (m.find()) {
            params.put(m.group(1).toLowerCase(), m.group(2));
        }
        HttpUrl realm = HttpUrl.parse(params.getOrDefault("realm", ""));
        if (realm == null) {
            throw new ImageException("registry " + image.registry() + " sent a Bearer challenge without a usable realm");
        }
        if (!realm.isHttps() && !plainHttpRealm(realm)) {
            throw new ImageException("registry " + image.registry() + " names token realm " + realm
                    + " over plain HTTP off this machine; refused");
        }
        HttpUrl.Builder url = realm.newBuilder();
        if (params.containsKey("service")) {
            url.addQueryParameter("service", params.get("service"));
        }
        url.addQueryParameter("scope", params.getOrDefault("scope", "repository:" + image.repository() + ":pull"));
        Request.Builder token = new Request.Builder().url(url.build());
        credentials.ifPresent(c -> token.header("Authorization", okhttp3.Credentials.basic(c.username(), c.password())));
        try (Response response = http.newCall(token.build()).execute()) {
            if (!response.isSuccessful()) {
                throw new ImageException("token realm " + realm + " refused a token for " + image.repository()
                        + " (HTTP " + response.code() + ")");
            }
            JsonNode body = new ObjectMapper().readTree(readAtMost(response.body().byteStream(), 1024 * 1024, "token"));
            String value = body.path("token").asText(body.path("access_token").asText(""));
            if (value.isEmpty()) {
                throw new ImageException("token realm " + realm + " answered without a token");
            }
            return "Bearer " + value;
        }
    }

    /**
     * A token realm may be plain HTTP on loopback or on a listed registry ({@code host:port}, or
     * {@code host} for port 80): the credentials sent there are the ones the operator allowed in clear.
     */
    private boolean plainHttpRealm(HttpUrl realm) {
        return ImageReference.isLoopbackHost(realm.host()) || plainHttpRegistries.contains(realm.host() + ":" + realm.port())
                || realm.port() == 80 && plainHttpRegistries.contains(realm.host());
    }

    private static void check(Response response, Repo image, String what) throws ImageException {
        if (response.isSuccessful()) {
            return;
        }
        String where = image.toString();
        throw new ImageException(switch (response.code()) {
            case 401, 403 -> "registry refused access to " + what + " of " + where + " (HTTP " + response.code() + ")";
            case 404 -> what + " is not in " + where;
            default -> "registry answered HTTP " + response.code() + " for " + what + " of " + where;
        });
    }

    private static byte[] readAtMost(InputStream in, long max, String what) throws IOException, ImageException {
        byte[] bytes = in.readNBytes((int) max + 1);
        if (bytes.length > max) {
            throw new ImageException(what + " is larger than " + max + " bytes; refused");
        }
        return bytes;
    }

    private static ImageException unreachable(Repo image, IOException e) {
        return new ImageException("cannot reach registry " + image.registry() + ": " + e.getMessage(), e);
    }
}
