package dev.knotless.checkout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a repository comes from, as the caller named it.
 *
 * @param location what git is given to clone and fetch from: the real path of a local
 *     repository, or the URL exactly as given (with any password in it)
 * @param canonical what names the mirror and appears in messages: the real path, or the URL
 *     without credentials (see {@link #redact})
 * @param local whether {@code location} is a path on this host
 */
record Source(String location, String canonical, boolean local) {

    private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*://");
    /** {@code http(s)://userinfo@host...}: a token may be the user name or the password. */
    private static final Pattern HTTP_USERINFO = Pattern.compile("^(https?://)([^/@]*)@", Pattern.CASE_INSENSITIVE);
    /** {@code scheme://user:password@host...}: the password is group 2. */
    private static final Pattern PASSWORD = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*://[^/@:]*):([^/@]*)@");

    /**
     * Reads {@code repo}: a URL ({@code https://}, {@code ssh://}, {@code file://}, any {@code
     * scheme://}), git's scp-like form {@code user@host:path} (a colon before any slash), or else
     * a path to a local repository, which must exist.
     */
    static Source of(String repo) throws CheckoutException {
        String trimmed = repo.strip();
        if (trimmed.isEmpty() || trimmed.startsWith("-") || trimmed.chars().anyMatch(Character::isISOControl)) {
            throw new CheckoutException("not a repository: '" + redact(trimmed) + "'");
        }
        if (SCHEME.matcher(trimmed).find() || isScpLike(trimmed)) {
            String url = stripTrailingSlashes(trimmed);
            return new Source(url, redact(url), false);
        }
        Path path = Path.of(trimmed).toAbsolutePath().normalize();
        if (!Files.exists(path)) {
            throw new CheckoutException("repository path " + path + " does not exist");
        }
        if (!Files.isDirectory(path)) {
            throw new CheckoutException("repository path " + path + " is not a directory");
        }
        boolean worktree = Files.exists(path.resolve(".git"));
        boolean bare = Files.isRegularFile(path.resolve("HEAD")) && Files.isDirectory(path.resolve("objects"));
        if (!worktree && !bare) {
            throw new CheckoutException("repository path " + path + " is not a git repository (no .git in it)");
        }
        try {
            String real = path.toRealPath().toString();
            return new Source(real, real, true);
        } catch (IOException e) {
            throw new CheckoutException("repository path " + path + " cannot be read: " + e.getMessage(), e);
        }
    }

    /** What git is handed for {@link #location}: its URL without credentials, and the credentials apart. */
    GitRemote remote() {
        return GitRemote.of(location);
    }

    /** For messages and the mirror's stored URL: the canonical form, never a password. */
    String display() {
        return canonical;
    }

    /** {@code <safe-name>-<12 hex digits of sha256(canonical)>.git}. */
    String mirrorName() {
        return safeName() + "-" + shortHash() + ".git";
    }

    String safeName() {
        String s = stripTrailingSlashes(canonical);
        int cut = Math.max(s.lastIndexOf('/'), s.lastIndexOf(':'));
        String last = s.substring(cut + 1);
        if (last.endsWith(".git")) {
            last = last.substring(0, last.length() - 4);
        }
        String safe = last.replaceAll("[^A-Za-z0-9._-]", "-").replaceAll("^[.-]+", "");
        if (safe.length() > 40) {
            safe = safe.substring(0, 40);
        }
        return safe.isEmpty() ? "repo" : safe;
    }

    String shortHash() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("every JVM has SHA-256", e);
        }
    }

    /**
     * Drops what may be a credential: the whole user part of an {@code http(s)} URL (tokens are
     * often given as the user name), the password of any other {@code scheme://user:password@}.
     */
    static String redact(String text) {
        Matcher http = HTTP_USERINFO.matcher(text);
        if (http.find()) {
            return http.group(1) + text.substring(http.end());
        }
        Matcher m = PASSWORD.matcher(text);
        return m.find() ? m.group(1) + "@" + text.substring(m.end()) : text;
    }

    /** The credentials in {@code location}, to scrub from git's messages. */
    List<String> secrets() {
        List<String> secrets = new ArrayList<>();
        Matcher http = HTTP_USERINFO.matcher(location);
        if (http.find()) {
            String[] parts = http.group(2).split(":", 2);
            // A long user name is likely a token; a short one ("git", "ci") would scrub common words.
            if (parts[0].length() >= 8) {
                secrets.add(parts[0]);
            }
            if (parts.length == 2 && !parts[1].isEmpty()) {
                secrets.add(parts[1]);
            }
        } else {
            Matcher m = PASSWORD.matcher(location);
            if (m.find() && !m.group(2).isEmpty()) {
                secrets.add(m.group(2));
            }
        }
        return secrets;
    }

    /** {@code text} with every credential of {@code location} replaced by {@code ***}. */
    String scrub(String text) {
        String result = text;
        for (String secret : secrets()) {
            result = result.replace(secret, "***");
        }
        return result;
    }

    /** Git's rule: {@code host:path} when a colon comes before any slash. */
    private static boolean isScpLike(String s) {
        int colon = s.indexOf(':');
        int slash = s.indexOf('/');
        return colon > 0 && (slash < 0 || colon < slash);
    }

    private static String stripTrailingSlashes(String s) {
        String result = s;
        while (result.length() > 1 && result.endsWith("/") && !result.endsWith("://")) {
            result = result.substring(0, result.length() - 1);
        }
        return result;
    }
}
