package dev.knotless.secrets;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Secrets per repository, by name.
 *
 * <p>Concurrency: every method is thread-safe. {@link #encryptedFile} additionally serialises
 * writers from other processes sharing the state directory with a file lock; readers always see a
 * whole file (files are replaced atomically).
 *
 * <p>Failures: methods throw {@link SecretStoreException} with a one-line reason when the store
 * cannot be read or written; they never return a partial answer.
 */
public interface SecretStore {

    /** The secret {@code name} of {@code repo}, decrypted; empty when it is not set. */
    Optional<Secret> get(String repo, String name);

    /** The names of {@code repo}'s secrets, sorted; never their values. */
    List<String> names(String repo);

    /** Sets {@code secret} for {@code repo}, replacing one of the same name. */
    void put(String repo, Secret secret);

    /** Removes {@code name} from {@code repo}; false when it was not set. */
    boolean remove(String repo, String name);

    /** A store that lives in memory only; for tests and one-shot local runs. */
    static SecretStore inMemory() {
        return new InMemorySecretStore();
    }

    /**
     * The runner's store: one file per repository under {@code <stateDir>/secrets/}, each value
     * sealed with AES-256-GCM under the key in {@code <stateDir>/secrets-key.json}. The key file is
     * created with mode 0600 when missing, and refused when its mode is looser. See {@code
     * docs/design/secrets.md}.
     *
     * @throws SecretStoreException when the key file has a loose mode, cannot be read or created
     */
    static SecretStore encryptedFile(Path stateDir) {
        return EncryptedFileSecretStore.open(stateDir);
    }
}
