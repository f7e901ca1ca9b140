package dev.knotless.spindle.setup;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.identity.DidDocument;
import dev.knotless.atproto.identity.DidResolver;
import dev.knotless.atproto.identity.IdentityException;
import dev.knotless.atproto.xrpc.XrpcClient;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;

/** {@link PdsClients#resolving}: bounded caches, least recently used out first. */
final class ResolvingPdsClients implements PdsClients {

    static final int MAX_KEPT = 10_000;

    private record Kept(HttpUrl pds, Instant at) {}

    private final DidResolver resolver;
    private final OkHttpClient http;
    private final ObjectMapper json;
    private final Duration keep;
    private final Clock clock;
    private final Map<String, Kept> pdsOf = lru();
    private final Map<HttpUrl, XrpcClient> clients = lru();

    ResolvingPdsClients(DidResolver resolver, OkHttpClient http, ObjectMapper json, Duration keep, Clock clock) {
        this.resolver = resolver;
        this.http = http;
        this.json = json;
        this.keep = keep;
        this.clock = clock;
    }

    @Override
    public XrpcClient forDid(String did) throws IOException {
        Instant now = clock.instant();
        HttpUrl pds;
        synchronized (this) {
            Kept k = pdsOf.get(did);
            pds = k != null && now.isBefore(k.at().plus(keep)) ? k.pds() : null;
        }
        if (pds == null) {
            pds = resolve(did);
            synchronized (this) {
                pdsOf.put(did, new Kept(pds, now));
            }
        }
        synchronized (this) {
            return clients.computeIfAbsent(pds, url -> new XrpcClient(http, url, null, json));
        }
    }

    @Override
    public synchronized void unreachable(String did) {
        pdsOf.remove(did);
    }

    private HttpUrl resolve(String did) throws IOException {
        DidDocument document;
        try {
            document = resolver.resolve(did);
        } catch (IdentityException e) {
            throw new IOException(e.getMessage(), e);
        }
        URI uri = document.pds().orElseThrow(() -> new IOException("the DID document of " + did + " names no #atproto_pds"));
        HttpUrl url = HttpUrl.parse(uri.toString());
        if (url == null) {
            throw new IOException("the #atproto_pds of " + did + " is not an HTTP URL");
        }
        return url;
    }

    private static <K, V> Map<K, V> lru() {
        return new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > MAX_KEPT;
            }
        };
    }
}
