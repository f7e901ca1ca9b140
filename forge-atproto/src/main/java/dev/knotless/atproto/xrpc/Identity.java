package dev.knotless.atproto.xrpc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Who the runner logs in as: a handle or DID and an app password, read from an identity file.
 *
 * <p>The file holds {@code key=value} lines ({@code #} starts a comment): {@code identifier} (a
 * handle such as {@code runner.example.com} or a {@code did:plc:…}) and {@code password} (an app
 * password). The password never appears in {@link #toString()} or in an exception message: an
 * identity ends up in log lines and stack traces.
 */
public record Identity(String identifier, String password) {

    /** Identity files are tiny; a larger one is not one. */
    private static final long MAX_FILE_BYTES = 4096;

    public Identity {
        Objects.requireNonNull(identifier, "identifier");
        Objects.requireNonNull(password, "password");
        if (identifier.isBlank() || identifier.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
            throw new IllegalArgumentException("identifier must be a handle or DID without spaces or control characters");
        }
        if (password.isEmpty()) {
            throw new IllegalArgumentException("password is empty");
        }
    }

    /**
     * Reads an identity file.
     *
     * @throws IOException naming the file and what is wrong with it (never the password)
     */
    public static Identity read(Path file) throws IOException {
        if (Files.size(file) > MAX_FILE_BYTES) {
            throw new IOException(file + ": over " + MAX_FILE_BYTES + " bytes, not an identity file");
        }
        Map<String, String> values = new HashMap<>();
        int lineNo = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            lineNo++;
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            int eq = t.indexOf('=');
            if (eq <= 0) {
                // The line may be the password itself: say where, not what.
                throw new IOException(file + ":" + lineNo + ": expected key=value");
            }
            String key = t.substring(0, eq).strip();
            if (!key.equals("identifier") && !key.equals("password")) {
                throw new IOException(file + ":" + lineNo + ": unknown key '" + key + "' (use identifier and password)");
            }
            values.put(key, t.substring(eq + 1).strip());
        }
        for (String key : new String[] {"identifier", "password"}) {
            if (values.getOrDefault(key, "").isEmpty()) {
                throw new IOException(file + ": no " + key);
            }
        }
        try {
            return new Identity(values.get("identifier"), values.get("password"));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "Identity[" + identifier + ", password hidden]";
    }
}
