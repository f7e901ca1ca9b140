package dev.knotless.forge.embedded;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.knotless.files.OwnerOnlyFiles;
import dev.knotless.forge.ForgeException;
import dev.knotless.forge.Repository;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;

/**
 * The embedded forge's records as files in its directory: where each kind lives (a repository's
 * {@code owner/name} as the one file name {@code owner+name}) and how a record is read and
 * written. Records are JSON, replaced atomically (written beside, synced, renamed over, the
 * directory synced), so a reader sees the old record or the new one, never a part.
 */
final class RecordFiles {

    private final Path dir;
    private final ObjectMapper json = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();

    RecordFiles(Path dir) {
        this.dir = dir;
    }

    /** Where the repository records are: {@code repos/}. */
    Path repos() {
        return dir.resolve("repos");
    }

    /** {@code repo}'s record. */
    Path repo(String repo) {
        return repos().resolve(fileName(repo) + ".json");
    }

    /** Where {@code repo}'s pull requests' metadata is, one {@code N.json} each. */
    Path pulls(String repo) {
        return dir.resolve("pulls").resolve(fileName(repo));
    }

    /** Where {@code repo}'s merge-queue entries are, one {@code N.json} each. */
    Path queue(String repo) {
        return dir.resolve("queue").resolve(fileName(repo));
    }

    <T> T read(Path file, Class<T> type) throws IOException {
        try {
            return json.readValue(Files.readAllBytes(file), type);
        } catch (NoSuchFileException e) {
            throw e;
        } catch (IOException | IllegalArgumentException e) {
            Throwable cause = e.getCause() instanceof IllegalArgumentException iae ? iae : e;
            String why = cause instanceof IllegalArgumentException ? cause.getMessage()
                    : e instanceof JacksonException je ? je.getOriginalMessage() : e.getMessage();
            throw new ForgeException("cannot read " + file + ": " + why, e);
        }
    }

    /** Writes beside, syncs, renames over, syncs the directory; the record is 0600, as its temporary file always was. */
    void write(Path file, Object value) throws IOException {
        Files.createDirectories(file.getParent());
        OwnerOnlyFiles.write(file, json.writeValueAsBytes(value));
    }

    /** Deletes a directory of records and everything in it; nothing when there is none. */
    static void deleteTree(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            return;
        }
        try (var walk = Files.walk(root)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /** {@code owner/name} as one file name: {@code owner+name} ('+' is in no name part). */
    static String fileName(String repo) {
        return Repository.checkName(repo).replace('/', '+');
    }
}
