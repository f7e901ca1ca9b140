package dev.knotless.http;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Who may ask the daemon's HTTP server what (docs/design/security.md, "the HTTP API"):
 *
 * <ul>
 *   <li><b>Host names.</b> A request is answered only when its {@code Host} is an IP address,
 *       {@code localhost}, or one of {@code hostNames}. A web page the operator opens can point a
 *       name it controls at 127.0.0.1 (DNS rebinding) and then read the API as same-origin; its
 *       requests carry that name, and are refused.
 *   <li><b>Tokens.</b> A request shows a token as {@code Authorization: Bearer TOKEN} (or, for
 *       the status page's event streams, which cannot send headers, the {@value #COOKIE} cookie,
 *       which only ever grants {@link ApiToken.Scope#READ}). Tokens are kept as SHA-256 hashes and
 *       compared in constant time against every entry.
 *   <li><b>Anonymous reading</b> only when {@code publicRead} says so.
 * </ul>
 */
public record ApiAccess(Set<String> hostNames, List<ApiToken> tokens, boolean publicRead) {

    /** The cookie the status page keeps a read token in. */
    public static final String COOKIE = "knotless_token";

    public ApiAccess {
        Set<String> lower = new TreeSet<>();
        hostNames.forEach(h -> lower.add(h.toLowerCase(Locale.ROOT)));
        hostNames = Set.copyOf(lower);
        tokens = List.copyOf(tokens);
    }

    /** Anyone on an allowed host may read; nobody may administer. What tests and a loopback daemon without tokens use. */
    public static ApiAccess openForReading() {
        return new ApiAccess(Set.of(), List.of(), true);
    }

    /** Reads a token file: one {@code NAME SCOPE sha256:HEX} per line, {@code #} comments and blank lines allowed. */
    public static List<ApiToken> readTokens(Path file) throws IOException {
        List<ApiToken> tokens = new ArrayList<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                tokens.add(ApiToken.parse(line));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + ": " + e.getMessage());
            }
        }
        return tokens;
    }

    /** Whether a request that says {@code Host: hostHeader} is meant for this server. */
    public boolean acceptsHost(@Nullable String hostHeader) {
        if (hostHeader == null || hostHeader.isBlank()) {
            return false; // HTTP/1.1 requires one; a client without it is not a browser we serve
        }
        String host = hostOf(hostHeader.strip()).toLowerCase(Locale.ROOT);
        return host.equals("localhost") || hostNames.contains(host) || isAddress(host);
    }

    /**
     * The scope a request has: from a bearer token, else (read only) from the page's cookie, else
     * {@link ApiToken.Scope#READ} when reading is public; empty when it has none.
     */
    public Optional<ApiToken.Scope> scopeOf(@Nullable String authorization, @Nullable String cookieToken) {
        if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            Optional<ApiToken> token = find(authorization.substring(7).strip());
            if (token.isPresent()) {
                return Optional.of(token.get().scope());
            }
        } else if (cookieToken != null && !cookieToken.isBlank() && find(cookieToken.strip()).isPresent()) {
            return Optional.of(ApiToken.Scope.READ);
        }
        return publicRead ? Optional.of(ApiToken.Scope.READ) : Optional.empty();
    }

    /** The token whose hash is the presented one's; every entry is compared, whatever matched first. */
    Optional<ApiToken> find(String presented) {
        byte[] hash = ApiToken.hash(presented);
        ApiToken found = null;
        for (ApiToken token : tokens) {
            if (token.matches(hash) && found == null) {
                found = token;
            }
        }
        return Optional.ofNullable(found);
    }

    private static String hostOf(String header) {
        if (header.startsWith("[")) {
            int close = header.indexOf(']');
            return close > 0 ? header.substring(1, close) : header;
        }
        int colon = header.lastIndexOf(':');
        return colon >= 0 && header.indexOf(':') == colon ? header.substring(0, colon) : header;
    }

    /** An IP literal, v4 or v6, without asking DNS (a name is never looked up here). */
    private static boolean isAddress(String host) {
        boolean v4 = host.matches("(\\d{1,3}\\.){3}\\d{1,3}");
        boolean v6 = host.contains(":") && host.matches("[0-9a-f:.]+(%[a-z0-9]+)?");
        if (!v4 && !v6) {
            return false;
        }
        try {
            // a string of this shape is parsed as a literal: getByName asks no resolver for it
            InetAddress.getByName(host);
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
