package dev.knotless.node.protocol;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.PublicKey;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A keyset file that is re-read when it changes, so keys rotate without restarting the agent.
 * Operators replace the file atomically (write a new one, rename it over); if a new version does
 * not parse, the last good keyset stays in force and the error is kept for the agent to report.
 */
public final class KeysetFile implements TrustedKeys {

    private final Path file;
    private Keyset current;
    private FileTime modified;
    private long size;
    private Object fileKey;
    private @Nullable String lastError;

    /** Reads the file once; a missing or invalid file at start is an error, not an empty keyset. */
    public KeysetFile(Path file) throws IOException {
        this.file = file;
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        this.current = Keyset.read(file);
        remember(attributes);
    }

    @Override
    public synchronized Optional<PublicKey> find(String keyId) {
        reloadIfChanged();
        return current.find(keyId);
    }

    @Override
    public synchronized java.util.Collection<PublicKey> all() {
        reloadIfChanged();
        return current.all();
    }

    /** Why the newest version of the file was not taken, or null when it was. */
    public synchronized @Nullable String lastError() {
        return lastError;
    }

    private void reloadIfChanged() {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            if (attributes.lastModifiedTime().equals(modified) && attributes.size() == size
                    && Objects.equals(attributes.fileKey(), fileKey)) {
                return;
            }
            Keyset next = Keyset.read(file);
            current = next;
            lastError = null;
            remember(attributes);
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            lastError = e.getMessage();
        }
    }

    private void remember(BasicFileAttributes attributes) {
        modified = attributes.lastModifiedTime();
        size = attributes.size();
        fileKey = attributes.fileKey();
    }
}
