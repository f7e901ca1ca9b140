package dev.knotless.hosted;

import java.net.URI;
import java.util.Locale;
import java.util.Optional;

/**
 * The host and project path a repository's URL names: {@code https://github.com/acme/web.git},
 * {@code ssh://git@codeberg.org/acme/web.git} and {@code git@gitlab.example.org:group/web.git}
 * alike; a local path names none.
 *
 * @param host lower case, without port
 * @param path without leading or trailing slashes and without {@code .git}
 */
record HostedUrl(String host, String path) {

    static Optional<HostedUrl> parse(String url) {
        String host;
        String path;
        int scheme = url.indexOf("://");
        if (scheme < 0) {
            int colon = url.indexOf(':');
            int slash = url.indexOf('/');
            if (colon <= 0 || (slash >= 0 && slash < colon)) {
                return Optional.empty(); // a path, or a name
            }
            String userHost = url.substring(0, colon);
            host = userHost.substring(userHost.indexOf('@') + 1);
            path = url.substring(colon + 1);
        } else {
            try {
                URI uri = URI.create(url);
                if (uri.getHost() == null || "file".equalsIgnoreCase(uri.getScheme())) {
                    return Optional.empty();
                }
                host = uri.getHost();
                path = uri.getPath() == null ? "" : uri.getPath();
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        }
        path = path.replaceAll("^/+|/+$", "");
        if (path.endsWith(".git")) {
            path = path.substring(0, path.length() - 4);
        }
        if (host.isBlank() || path.isBlank() || !path.contains("/")) {
            return Optional.empty();
        }
        return Optional.of(new HostedUrl(host.toLowerCase(Locale.ROOT), path));
    }
}
