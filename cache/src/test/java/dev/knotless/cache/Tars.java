package dev.knotless.cache;

import dev.knotless.tar.TarStreams;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Random;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/** Small tars for tests, and the store operations tests repeat. */
final class Tars {

    private static final Instant MTIME = Instant.parse("2026-01-01T00:00:00Z");

    private Tars() {}

    /** A tar with one file {@code name} holding {@code content}. */
    static byte[] withFile(String name, byte[] content) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            TarArchiveOutputStream tar = TarStreams.newOutput(bytes);
            TarArchiveEntry entry = new TarArchiveEntry(name);
            entry.setSize(content.length);
            entry.setMode(0100644);
            entry.setModTime(FileTime.from(MTIME)); // whole seconds: no PAX header, same bytes every time
            tar.putArchiveEntry(entry);
            tar.write(content);
            tar.closeArchiveEntry();
            tar.finish();
            tar.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static byte[] withText(String name, String text) {
        return withFile(name, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Incompressible bytes: their compressed size is about their own. */
    static byte[] random(long seed, int size) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    static Upper upper(CacheStore store, CacheKey key, String runId, byte[] tar) throws IOException {
        Upper upper = store.beginUpper(key, runId);
        upper.sink().readFrom(new ByteArrayInputStream(tar));
        return upper;
    }

    static byte[] restore(CacheStore store, Layer layer) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        store.restore(layer).writeTo(out);
        return out.toByteArray();
    }

    /** A short stand-in for comparing large byte arrays, so a failure prints two hashes, not megabytes. */
    static String sha(byte[] bytes) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
            return bytes.length + " bytes, sha256 " + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
