package dev.knotless.secrets;

import com.fasterxml.jackson.core.JacksonException;
import dev.knotless.files.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;

/**
 * {@link SecretStore#encryptedFile}: one JSON file per repository, {@code
 * <stateDir>/secrets/<sha256(repo)>.json}, holding the repository name, the key's id and, per
 * secret, a fresh 12-byte nonce and the AES-GCM ciphertext (with its 128-bit tag) of the value.
 * The additional authenticated data binds each ciphertext to its repository and name.
 *
 * <p>Plaintext values exist only in memory: they are encrypted before anything is written and
 * decrypted only by {@link #get}.
 */
final class EncryptedFileSecretStore implements SecretStore {

    /*
     * Concurrency
     *
     * Writers (put, remove) read, change and replace a repository's file while holding both the
     * JVM-wide monitor for the secrets directory and an exclusive lock on secrets/.lock, so that
     * two stores on the same directory, in one process or several, never lose each other's
     * updates. Readers take no lock: a file is only ever replaced whole by an atomic rename.
     */

    static final String DIRECTORY = "secrets";
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final Map<Path, Object> MONITORS = new ConcurrentHashMap<>();

    /** On-disk form of one repository's secrets. */
    record RepoFile(int format, String repo, String keyId, SortedMap<String, Sealed> secrets) {
        RepoFile {
            secrets = secrets == null ? new TreeMap<>() : new TreeMap<>(secrets);
        }
    }

    /** One sealed value: nonce and ciphertext-with-tag, both base64. */
    record Sealed(String nonce, String ciphertext) {}

    private final Path directory;
    private final SecretKeyFile key;
    private final Object monitor;

    private EncryptedFileSecretStore(Path directory, SecretKeyFile key) {
        this.directory = directory;
        this.key = key;
        this.monitor = MONITORS.computeIfAbsent(directory, d -> new Object());
    }

    static EncryptedFileSecretStore open(Path stateDir) {
        Objects.requireNonNull(stateDir, "stateDir");
        Path state = stateDir.toAbsolutePath().normalize();
        try {
            if (!Files.isDirectory(state)) {
                Files.createDirectories(state, OwnerOnlyFiles.DIRECTORY);
            }
            Path directory = state.resolve(DIRECTORY);
            if (!Files.isDirectory(directory)) {
                Files.createDirectories(directory, OwnerOnlyFiles.DIRECTORY);
            }
            return new EncryptedFileSecretStore(directory.toRealPath(), SecretKeyFile.loadOrCreate(state));
        } catch (IOException e) {
            throw new SecretStoreException("cannot create secrets directory under " + state + ": " + e, e);
        }
    }

    @Override
    public Optional<Secret> get(String repo, String name) {
        Objects.requireNonNull(name, "name");
        Path file = fileOf(repo);
        RepoFile stored = read(repo, file);
        Sealed sealed = stored.secrets().get(name);
        if (sealed == null) {
            return Optional.empty();
        }
        checkKey(stored, file);
        return Optional.of(new Secret(name, open(repo, name, sealed, file)));
    }

    @Override
    public List<String> names(String repo) {
        return List.copyOf(read(repo, fileOf(repo)).secrets().keySet());
    }

    @Override
    public void put(String repo, Secret secret) {
        Objects.requireNonNull(secret, "secret");
        Path file = fileOf(repo);
        update(file, () -> {
            RepoFile stored = read(repo, file);
            if (!stored.secrets().isEmpty()) {
                checkKey(stored, file);
            }
            SortedMap<String, Sealed> secrets = new TreeMap<>(stored.secrets());
            secrets.put(secret.name(), seal(repo, secret));
            write(file, new RepoFile(1, repo, key.id(), secrets));
            return true;
        });
    }

    @Override
    public boolean remove(String repo, String name) {
        Objects.requireNonNull(name, "name");
        Path file = fileOf(repo);
        return update(file, () -> {
            RepoFile stored = read(repo, file);
            if (!stored.secrets().containsKey(name)) {
                return false;
            }
            SortedMap<String, Sealed> secrets = new TreeMap<>(stored.secrets());
            secrets.remove(name);
            if (secrets.isEmpty()) {
                Files.deleteIfExists(file);
                OwnerOnlyFiles.syncDirectory(directory);
            } else {
                write(file, new RepoFile(1, repo, stored.keyId(), secrets));
            }
            return true;
        });
    }

    @FunctionalInterface
    private interface Update {
        boolean apply() throws IOException;
    }

    private boolean update(Path file, Update change) {
        synchronized (monitor) {
            try (FileChannel channel = FileChannel.open(directory.resolve(".lock"),
                    Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE), OwnerOnlyFiles.FILE)) {
                FileLock lock = channel.lock();
                try {
                    return change.apply();
                } finally {
                    lock.release();
                }
            } catch (IOException e) {
                throw new SecretStoreException("cannot write " + file + ": " + e, e);
            }
        }
    }

    private Path fileOf(String repo) {
        Objects.requireNonNull(repo, "repo");
        if (repo.isEmpty()) {
            throw new IllegalArgumentException("repository name is empty");
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(repo.getBytes(StandardCharsets.UTF_8));
            return directory.resolve(HexFormat.of().formatHex(digest) + ".json");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    private RepoFile read(String repo, Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return new RepoFile(1, repo, key.id(), null);
        } catch (IOException e) {
            throw new SecretStoreException("cannot read " + file + ": " + e, e);
        }
        RepoFile stored;
        try {
            stored = SecretKeyFile.JSON.readValue(bytes, RepoFile.class);
        } catch (JacksonException e) {
            throw new SecretStoreException("secrets file " + file + " is not valid JSON: "
                    + String.valueOf(e.getOriginalMessage()).lines().findFirst().orElse(""));
        } catch (IOException e) {
            throw new SecretStoreException("cannot read " + file + ": " + e, e);
        }
        if (stored.format() != 1) {
            throw new SecretStoreException("secrets file " + file + " has format " + stored.format()
                    + "; this runner reads format 1");
        }
        if (!repo.equals(stored.repo())) {
            throw new SecretStoreException("secrets file " + file + " belongs to repository '"
                    + stored.repo() + "', not '" + repo + "'");
        }
        return stored;
    }

    private void checkKey(RepoFile stored, Path file) {
        if (!key.id().equals(stored.keyId())) {
            throw new SecretStoreException("secrets in " + file + " were sealed with key " + stored.keyId()
                    + " but " + key.path() + " holds key " + key.id()
                    + "; restore the original key file or set these secrets again");
        }
    }

    private void write(Path file, RepoFile content) throws IOException {
        OwnerOnlyFiles.write(file, SecretKeyFile.JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(content));
    }

    private Sealed seal(String repo, Secret secret) {
        byte[] nonce = new byte[NONCE_BYTES];
        SecretKeyFile.RANDOM.nextBytes(nonce);
        byte[] plain = secret.value().getBytes(StandardCharsets.UTF_8);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key.key(), new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(aad(repo, secret.name()));
            byte[] sealed = cipher.doFinal(plain);
            Base64.Encoder base64 = Base64.getEncoder();
            return new Sealed(base64.encodeToString(nonce), base64.encodeToString(sealed));
        } catch (GeneralSecurityException e) {
            throw new SecretStoreException("cannot encrypt " + secret.name() + ": " + e, e);
        } finally {
            Arrays.fill(plain, (byte) 0);
        }
    }

    private String open(String repo, String name, Sealed sealed, Path file) {
        byte[] plain = null;
        try {
            Base64.Decoder base64 = Base64.getDecoder();
            byte[] nonce = base64.decode(sealed.nonce());
            if (nonce.length != NONCE_BYTES) {
                throw new SecretStoreException("secret " + name + " in " + file + " has a "
                        + nonce.length + "-byte nonce; expected " + NONCE_BYTES);
            }
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key.key(), new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(aad(repo, name));
            plain = cipher.doFinal(base64.decode(sealed.ciphertext()));
            return new String(plain, StandardCharsets.UTF_8);
        } catch (AEADBadTagException e) {
            throw new SecretStoreException("secret " + name + " in " + file + " cannot be decrypted with "
                    + key.path() + ": the ciphertext was altered or moved from another name or repository");
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new SecretStoreException("secret " + name + " in " + file + " is not valid base64");
        } catch (GeneralSecurityException e) {
            throw new SecretStoreException("cannot decrypt " + name + " in " + file + ": " + e, e);
        } finally {
            if (plain != null) {
                Arrays.fill(plain, (byte) 0);
            }
        }
    }

    /** {@code knotless-secret-v1 NUL repo NUL name}: unambiguous because names hold no NUL. */
    private static byte[] aad(String repo, String name) {
        return ("knotless-secret-v1\0" + repo + "\0" + name).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "SecretStore.encryptedFile(" + directory.getParent() + ")";
    }
}
