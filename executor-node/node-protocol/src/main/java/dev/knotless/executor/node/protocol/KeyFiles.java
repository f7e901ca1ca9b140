package dev.knotless.executor.node.protocol;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Key files: one line, standard base64 of the raw 32-byte key. A private key file is born with mode
 * 0600 (never a moment wider) and is refused when group or others can read it.
 */
public final class KeyFiles {

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private KeyFiles() {}

    /** What {@code node keygen} wrote. */
    public record Written(String keyId, Path privateKey, Path publicKey) {}

    /** Writes {@code prefix.key} (0600) and {@code prefix.pub}; refuses to replace either. */
    public static Written writePair(Path prefix, KeyPair pair, @Nullable String keyId) throws IOException {
        Path dir = prefix.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new IOException("no such directory: " + dir);
        }
        Path privateFile = prefix.resolveSibling(prefix.getFileName() + ".key");
        Path publicFile = prefix.resolveSibling(prefix.getFileName() + ".pub");
        for (Path p : new Path[] {privateFile, publicFile}) {
            if (Files.exists(p)) {
                throw new FileAlreadyExistsException(p + " already exists; not replacing a key");
            }
        }
        byte[] rawPublic = Ed25519Keys.raw(pair.getPublic());
        String id = keyId == null ? Ed25519Keys.keyIdOf(rawPublic) : Names.keyId(keyId);
        write(privateFile, Ed25519Keys.encodeBase64Key(Ed25519Keys.raw(pair.getPrivate())), true);
        try {
            write(publicFile, Ed25519Keys.encodeBase64Key(rawPublic), false);
        } catch (IOException e) {
            Files.deleteIfExists(privateFile);
            throw e;
        }
        return new Written(id, privateFile, publicFile);
    }

    /** Reads a private key file, refusing one that group or others may read. */
    public static PrivateKey readPrivateKey(Path file) throws IOException {
        PosixFileAttributeView posix = Files.getFileAttributeView(file, PosixFileAttributeView.class);
        if (posix != null) {
            Set<PosixFilePermission> mode = posix.readAttributes().permissions();
            if (!OWNER_ONLY.containsAll(mode)) {
                throw new IllegalArgumentException("private key file " + file + " has mode "
                        + PosixFilePermissions.toString(mode) + "; it must be readable by its owner only (chmod 600)");
            }
        }
        return Ed25519Keys.readPrivateKey(file);
    }

    private static void write(Path file, String base64, boolean secret) throws IOException {
        FileAttribute<?>[] attributes = secret && Files.getFileStore(file.toAbsolutePath().getParent())
                .supportsFileAttributeView(PosixFileAttributeView.class)
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
                : new FileAttribute<?>[0];
        try (var channel = Files.newByteChannel(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), attributes)) {
            channel.write(java.nio.ByteBuffer.wrap((base64 + "\n").getBytes(StandardCharsets.US_ASCII)));
        }
    }
}
