package dev.knotless.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A test's two API tokens (a reader's and an admin's), the access they make, and requests to a
 * started server with one of them, or none.
 */
final class ApiCaller {

    final String reader = ApiToken.newToken(new SecureRandom());
    final String admin = ApiToken.newToken(new SecureRandom());
    private final HttpClient http = HttpClient.newHttpClient();

    /** Access that knows both tokens; {@code publicRead}: no token reads as the read scope. */
    ApiAccess access(boolean publicRead) {
        return new ApiAccess(Set.of(), List.of(new ApiToken("dash", ApiToken.Scope.READ, ApiToken.hash(reader)),
                new ApiToken("ops", ApiToken.Scope.ADMIN, ApiToken.hash(admin))), publicRead);
    }

    /** {@code METHOD path} with a JSON {@code body} (none when null), as {@code token} (none when null). */
    HttpResponse<String> send(StatusServer server, String method, String path, @Nullable String body, @Nullable String token)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
