package dev.knotless.cache;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Where a store keeps its files, under its root ({@code <state>/cache}):
 *
 * <pre>
 * layers/&lt;key id&gt;/&lt;ref id&gt;.tar.zst   a base layer: the tar, zstd-compressed
 * layers/&lt;key id&gt;/&lt;ref id&gt;.json      its metadata: repo, scope, ref, last used
 * staging/&lt;key id&gt;-&lt;random&gt;.tar.zst  upper layers being written or waiting for a decision
 * locks/&lt;key id&gt;.lock               one empty lock file per key, never deleted
 * </pre>
 *
 * Ids are the first 128 bits of a SHA-256 over the length-prefixed raw values, in hex, so no
 * repository, scope or branch name ever reaches a path, and {@code ("a", "b:c")} and
 * {@code ("a:b", "c")} differ. Temporary files start with a dot.
 */
final class Layout {

    static final String DATA = ".tar.zst";
    static final String META = ".json";

    final Path root;
    final Path layers;
    final Path staging;
    final Path locks;

    Layout(Path root) {
        this.root = root;
        this.layers = root.resolve("layers");
        this.staging = root.resolve("staging");
        this.locks = root.resolve("locks");
    }

    Path keyDir(String keyId) {
        return layers.resolve(keyId);
    }

    Path data(String keyId, String refId) {
        return keyDir(keyId).resolve(refId + DATA);
    }

    Path meta(String keyId, String refId) {
        return keyDir(keyId).resolve(refId + META);
    }

    static String id(String... parts) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        for (String part : parts) {
            byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            sha.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
            sha.update(bytes);
        }
        return HexFormat.of().formatHex(sha.digest(), 0, 16);
    }
}
