package dev.knotless.cache;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.knotless.files.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * The metadata file beside a layer: the raw key and ref its hashed name stands for, when it was
 * last restored or written, and whether the run that wrote it was granted any secret ({@code
 * secrets}; absent in layers written before it was kept, which count as granted). The layer's size and creation time are the data file's own size
 * and modification time, so a crash between writing this file and renaming the data file can
 * only leave a last-used time that is a little too new.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
record LayerMeta(int format, String repo, String scope, String ref, String lastUsed, Boolean secrets) {

    static final int FORMAT = 1;

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    static LayerMeta of(CacheKey key, String ref, Instant lastUsed, boolean secrets) {
        return new LayerMeta(FORMAT, key.repo(), key.scope(), ref, lastUsed.toString(), secrets);
    }

    LayerMeta usedAt(Instant when) {
        return new LayerMeta(format, repo, scope, ref, when.toString(), secrets);
    }

    /** Whether the run that wrote the layer was granted a secret; unknown counts as granted. */
    boolean secretsGranted() {
        return !Boolean.FALSE.equals(secrets);
    }

    CacheKey key() {
        return new CacheKey(repo, scope);
    }

    Instant lastUsedAt() {
        return Instant.parse(lastUsed);
    }

    boolean describes(CacheKey key, String ref) {
        return key.repo().equals(repo) && key.scope().equals(scope) && ref.equals(this.ref);
    }

    void writeTo(Path file) throws IOException {
        OwnerOnlyFiles.write(file, JSON.writeValueAsBytes(this));
    }

    /** The metadata in {@code file}; empty if there is none or it is not a whole, known record. */
    static Optional<LayerMeta> read(Path file) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        try {
            LayerMeta meta = JSON.readValue(bytes, LayerMeta.class);
            if (meta.format != FORMAT || isBlank(meta.repo) || isBlank(meta.scope) || isBlank(meta.ref)
                    || meta.lastUsed == null) {
                return Optional.empty();
            }
            meta.lastUsedAt();
            return Optional.of(meta);
        } catch (IOException | DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }
}
