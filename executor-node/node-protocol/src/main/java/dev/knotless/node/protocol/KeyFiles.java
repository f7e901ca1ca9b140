package dev.knotless.node.protocol;

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
    public record Written(String keyId, Path privateKey, Path publicKey, Path keyIdFile) {}

    /**
     * Writes {@code prefix.key} (0600), {@code prefix.pub} and {@code prefix.id} (the key id, which a
     * keyset line names); refuses to replace any of them.
     */
    public static Written writePair(Path prefix, KeyPair pair, @Nullable String keyId) throws IOException {
        Path dir = prefix.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new IOException("no such directory: " + dir);
        }
        Path privateFile = prefix.resolveSibling(prefix.getFileName() + ".key");
        Path publicFile = prefix.resolveSibling(prefix.getFileName() + ".pub");
        Path idFile = prefix.resolveSibling(prefix.getFileName() + ".id");
        for (Path p : new Path[] {privateFile, publicFile, idFile}) {
            if (Files.exists(p)) {
                throw new FileAlreadyExistsException(p + " already exists; not replacing a key");
            }
        }
        byte[] rawPublic = Ed25519Keys.raw(pair.getPublic());
        String id = keyId == null ? Ed25519Keys.keyIdOf(rawPublic) : Names.keyId(keyId);
        write(privateFile, Ed25519Keys.encodeBase64Key(Ed25519Keys.raw(pair.getPrivate())), true);
        try {
            write(publicFile, Ed25519Keys.encodeBase64Key(rawPublic), false);
            write(idFile, id, false);
        } catch (IOException e) {
            Files.deleteIfExists(privateFile);
            Files.deleteIfExists(publicFile);
            throw e;
        }
        return new Written(id, privateFile, publicFile, idFile);
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

    /** The key id {@code keygen} wrote beside a public key file ({@code NAME.id} for {@code NAME.pub}), if there is one. */
    public static java.util.Optional<String> keyIdBeside(Path publicKey) throws IOException {
        String name = publicKey.getFileName().toString();
        Path idFile = publicKey.resolveSibling((name.endsWith(".pub") ? name.substring(0, name.length() - 4) : name) + ".id");
        if (!Files.isRegularFile(idFile)) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(Names.keyId(Files.readString(idFile, StandardCharsets.US_ASCII).strip()));
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
