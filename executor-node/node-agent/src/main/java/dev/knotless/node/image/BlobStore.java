package dev.knotless.node.image;

import dev.knotless.registry.Digest;
import dev.knotless.registry.ImageException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * Content-addressed blobs under {@code <state>/blobs/sha256/<hex>}. A blob is written to
 * {@code <state>/tmp}, checked against its descriptor's size and digest while it streams, and only
 * then renamed to its final name, so every file under a final name is complete and verified: a
 * crash leaves at most a temp file, and a repeated pull finds the blob and fetches nothing.
 */
final class BlobStore {

    private final Path blobs;
    private final Path tmp;

    BlobStore(Path stateDir) throws IOException {
        this.blobs = Files.createDirectories(stateDir.resolve("blobs").resolve("sha256"));
        this.tmp = Files.createDirectories(stateDir.resolve("tmp"));
    }

    Path path(Digest digest) {
        return blobs.resolve(digest.hex());
    }

    boolean has(Digest digest) {
        return Files.isRegularFile(path(digest));
    }

    byte[] read(Digest digest) throws IOException {
        return Files.readAllBytes(path(digest));
    }

    /**
     * Streams {@code in} into the store as {@code expected}. {@code what} names the blob in errors
     * ("layer", "config"). On any mismatch nothing is kept.
     */
    Path put(String what, Descriptor expected, InputStream in) throws ImageException, IOException {
        Path temp = Files.createTempFile(tmp, expected.digest().hex() + ".", ".part");
        try {
            MessageDigest sha256 = Digest.sha256();
            long size = 0;
            byte[] buffer = new byte[64 * 1024];
            try (OutputStream out = Files.newOutputStream(temp)) {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    size += n;
                    if (size > expected.size()) {
                        throw new ImageException(what + " " + expected.digest() + " is larger than the "
                                + expected.size() + " bytes its descriptor says; refused");
                    }
                    sha256.update(buffer, 0, n);
                    out.write(buffer, 0, n);
                }
            }
            if (size != expected.size()) {
                throw new ImageException(what + " " + expected.digest() + " is " + size + " bytes, not the "
                        + expected.size() + " its descriptor says; refused");
            }
            Digest actual = new Digest(HexFormat.of().formatHex(sha256.digest()));
            if (!actual.equals(expected.digest())) {
                throw new ImageException(what + " " + expected.digest() + " does not match its digest (the registry sent "
                        + actual + "); refused");
            }
            Path target = path(expected.digest());
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
                // A concurrent pull stored the same verified content first; either copy will do.
                Files.deleteIfExists(temp);
            }
            return target;
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** Stores bytes already in memory (manifests) after the same checks. */
    Path put(String what, Descriptor expected, byte[] bytes) throws ImageException, IOException {
        return put(what, expected, new java.io.ByteArrayInputStream(bytes));
    }
}
