package dev.knotless.atproto.identity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import java.util.regex.Pattern;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Fetches DID documents: {@code did:plc} from a PLC directory ({@code GET {plc}/{did}}),
 * {@code did:web} from {@code https://{host}/.well-known/did.json}. Documents are read within
 * {@link #MAX_BYTES}; a real one is about a kilobyte.
 */
public final class DidResolver {

    public static final int MAX_BYTES = 64 << 10;
    public static final HttpUrl PUBLIC_PLC = HttpUrl.get("https://plc.directory");
    private static final Pattern PLC = Pattern.compile("did:plc:[a-z2-7]{24}");
    /** A host name, with a port written %3A (for local tests); no path: ATProto's did:web has none. */
    private static final Pattern WEB = Pattern.compile("did:web:([a-zA-Z0-9.-]{1,253})(%3[aA][0-9]{1,5})?");

    private final OkHttpClient http;
    private final HttpUrl plc;
    private final ObjectMapper json;

    public DidResolver(OkHttpClient http, HttpUrl plc, ObjectMapper json) {
        this.http = Objects.requireNonNull(http, "http");
        this.plc = Objects.requireNonNull(plc, "plc");
        this.json = Objects.requireNonNull(json, "json");
    }

    /** Whether {@code did} is a DID this resolver can look up. */
    public static boolean supported(String did) {
        return PLC.matcher(did).matches() || WEB.matcher(did).matches();
    }

    public DidDocument resolve(String did) throws IdentityException {
        HttpUrl url;
        if (PLC.matcher(did).matches()) {
            url = plc.newBuilder().addPathSegment(did).build();
        } else {
            var web = WEB.matcher(did);
            if (!web.matches()) {
                throw new IdentityException("cannot resolve " + OneLine.ofUntrusted(did, 120) + ": only did:plc and did:web (a host, no path) are supported");
            }
            String port = web.group(2) == null ? "" : ":" + web.group(2).substring(3);
            // localhost serves plain HTTP, as the did:web spec's own examples for development do.
            String scheme = web.group(1).equals("localhost") ? "http" : "https";
            url = HttpUrl.get(scheme + "://" + web.group(1) + port + "/.well-known/did.json");
        }
        return DidDocument.parse(did, fetch(did, url));
    }

    private JsonNode fetch(String did, HttpUrl url) throws IdentityException {
        try (Response response = http.newCall(new Request.Builder().url(url).get().build()).execute()) {
            if (response.code() == 404 || response.code() == 410) {
                throw new IdentityException(did + " is not known to " + url + " (HTTP " + response.code() + ")");
            }
            if (!response.isSuccessful()) {
                throw new IdentityException("resolving " + did + " at " + url + ": HTTP " + response.code());
            }
            try (InputStream in = response.body().byteStream()) {
                byte[] body = in.readNBytes(MAX_BYTES + 1);
                if (body.length > MAX_BYTES) {
                    throw new IdentityException("the DID document of " + did + " at " + url + " is over " + MAX_BYTES + " bytes");
                }
                JsonNode node = json.readTree(body);
                if (node == null || !node.isObject()) {
                    throw new IdentityException("the DID document of " + did + " at " + url + " is not a JSON object");
                }
                return node;
            }
        } catch (IOException e) {
            throw new IdentityException("resolving " + did + " at " + url + ": "
                    + OneLine.ofUntrusted(Objects.toString(e.getMessage(), e.getClass().getSimpleName()), 120), e);
        }
    }
}
