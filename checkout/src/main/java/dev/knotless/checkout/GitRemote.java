package dev.knotless.checkout;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A repository location as git is handed it: the URL without its credentials, which would show
 * in {@code ps} as git's arguments, and the credentials in git's environment, where only the
 * runner's own user can read them. Git asks for them only when the server wants them (a 401),
 * through a credential helper set by environment ({@code GIT_CONFIG_*}: no file, no argument).
 *
 * @param url what git gets as an argument: an {@code http(s)} URL without its user part, any
 *     other location as given
 */
public record GitRemote(String url, @Nullable String username, @Nullable String password) {

    private static final Pattern HTTP_USERINFO = Pattern.compile("^(https?://)([^/@]*)@", Pattern.CASE_INSENSITIVE);
    static final String USERNAME_VARIABLE = "KNOTLESS_GIT_USERNAME";
    static final String PASSWORD_VARIABLE = "KNOTLESS_GIT_PASSWORD";
    /** Answers git's {@code get} with the two variables; {@code store} and {@code erase} do nothing. */
    private static final String HELPER = "!f() { test \"$1\" = get && printf 'username=%s\\npassword=%s\\n' \"$"
            + USERNAME_VARIABLE + "\" \"$" + PASSWORD_VARIABLE + "\"; }; f";

    public GitRemote {
        Objects.requireNonNull(url, "url");
    }

    /** Splits the user part off an {@code http(s)} location; every other location is kept whole. */
    public static GitRemote of(String location) {
        Matcher m = HTTP_USERINFO.matcher(location);
        if (!m.find()) {
            return new GitRemote(location, null, null);
        }
        String[] parts = m.group(2).split(":", 2);
        String user = percentDecoded(parts[0]);
        String password = parts.length == 2 ? percentDecoded(parts[1]) : "";
        return new GitRemote(m.group(1) + location.substring(m.end()), user, password);
    }

    /**
     * What git's environment needs for these credentials: empty without any. The first helper
     * entry is empty, which makes git forget the helpers of the user's own configuration, so that
     * these credentials are the ones given.
     */
    public Map<String, String> environment() {
        if (username == null) {
            return Map.of();
        }
        Map<String, String> env = new LinkedHashMap<>();
        env.put("GIT_CONFIG_COUNT", "2");
        env.put("GIT_CONFIG_KEY_0", "credential.helper");
        env.put("GIT_CONFIG_VALUE_0", "");
        env.put("GIT_CONFIG_KEY_1", "credential.helper");
        env.put("GIT_CONFIG_VALUE_1", HELPER);
        env.put(USERNAME_VARIABLE, username);
        env.put(PASSWORD_VARIABLE, password == null ? "" : password);
        return env;
    }

    @Override
    public String toString() {
        return "GitRemote[" + url + (username == null ? "" : ", with credentials") + "]";
    }

    private static String percentDecoded(String text) {
        try {
            return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return text;
        }
    }
}
