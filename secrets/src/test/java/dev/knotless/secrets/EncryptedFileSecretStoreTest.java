package dev.knotless.secrets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EncryptedFileSecretStoreTest extends SecretStoreContract {

    @TempDir
    Path state;

    @Override
    SecretStore store() {
        return SecretStore.encryptedFile(state);
    }

    @Test
    void secretsSurviveReopeningTheStore() {
        SecretStore.encryptedFile(state).put("acme/app", new Secret("TOKEN", "persisted-value"));

        assertThat(SecretStore.encryptedFile(state).get("acme/app", "TOKEN"))
                .map(Secret::value).contains("persisted-value");
    }

    @Test
    void noFileUnderTheStateDirectoryContainsAPlaintextValueInAnyCommonEncoding() throws IOException {
        String value = "plaintext-needle-4711-\u00e9";
        SecretStore store = store();
        store.put("acme/app", new Secret("TOKEN", value));
        store.put("acme/app", new Secret("OTHER", value + "-2"));
        store.remove("acme/app", "OTHER");

        List<byte[]> needles = List.of(
                value.getBytes(StandardCharsets.UTF_8),
                "plaintext-needle".getBytes(StandardCharsets.UTF_16BE),
                "plaintext-needle".getBytes(StandardCharsets.UTF_16LE),
                Base64.getEncoder().encode(value.getBytes(StandardCharsets.UTF_8)),
                HexFormat.of().formatHex(value.getBytes(StandardCharsets.UTF_8)).getBytes(StandardCharsets.US_ASCII));
        try (Stream<Path> files = Files.walk(state)) {
            List<Path> regular = files.filter(Files::isRegularFile).toList();
            assertThat(regular).isNotEmpty();
            for (Path file : regular) {
                byte[] content = Files.readAllBytes(file);
                for (byte[] needle : needles) {
                    assertThat(indexOf(content, needle)).as("%s holds a plaintext form", file).isEqualTo(-1);
                }
            }
        }
    }

    @Test
    void theRepositoryFileIsNamedAfterTheRepositoryHashAndNamesTheRepository() throws IOException {
        store().put("acme/app", new Secret("TOKEN", "v"));

        Path file = state.resolve("secrets/" + sha256("acme/app") + ".json");
        JsonNode json = new ObjectMapper().readTree(file.toFile());
        assertThat(json.get("repo").asText()).isEqualTo("acme/app");
        assertThat(json.get("secrets").get("TOKEN").get("nonce").asText()).isNotBlank();
        assertThat(Base64.getDecoder().decode(json.get("secrets").get("TOKEN").get("nonce").asText())).hasSize(12);
    }

    @Test
    void everyValueGetsAFreshNonce() throws IOException {
        SecretStore store = store();
        store.put("acme/app", new Secret("A", "same"));
        store.put("acme/app", new Secret("B", "same"));

        JsonNode secrets = new ObjectMapper().readTree(state.resolve("secrets/" + sha256("acme/app") + ".json").toFile()).get("secrets");
        assertThat(secrets.get("A").get("nonce")).isNotEqualTo(secrets.get("B").get("nonce"));
        assertThat(secrets.get("A").get("ciphertext")).isNotEqualTo(secrets.get("B").get("ciphertext"));
    }

    @Test
    void theKeyAndSecretsFilesAreCreatedWithMode0600AndNoTemporaryFilesRemain() throws IOException {
        store().put("acme/app", new Secret("TOKEN", "v"));

        assertThat(mode(state.resolve("secrets-key.json"))).isEqualTo("rw-------");
        assertThat(mode(state.resolve("secrets/" + sha256("acme/app") + ".json"))).isEqualTo("rw-------");
        assertThat(mode(state.resolve("secrets"))).isEqualTo("rwx------");
        try (Stream<Path> files = Files.walk(state)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
        }
    }

    @Test
    void theKeyHas256RandomBits() throws IOException {
        store();
        JsonNode key = new ObjectMapper().readTree(state.resolve("secrets-key.json").toFile());

        assertThat(Base64.getDecoder().decode(key.get("key").asText())).hasSize(32);
        assertThat(key.get("algorithm").asText()).isEqualTo("AES-256-GCM");
    }

    @Test
    void aKeyFileReadableByOthersIsRefusedWithTheChmodToRun() throws IOException {
        store();
        Path key = state.resolve("secrets-key.json");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> SecretStore.encryptedFile(state))
                .isInstanceOf(SecretStoreException.class)
                .hasMessage("secrets key " + key + " has mode 0644; it must be 0600 (chmod 600 " + key + ")");
    }

    @Test
    void aStricterKeyFileModeIsAccepted() throws IOException {
        store().put("acme/app", new Secret("TOKEN", "v"));
        Files.setPosixFilePermissions(state.resolve("secrets-key.json"), PosixFilePermissions.fromString("r--------"));

        assertThat(SecretStore.encryptedFile(state).get("acme/app", "TOKEN")).isPresent();
    }

    @Test
    void aDifferentKeyFailsClearlyInsteadOfReturningGarbage() throws IOException {
        store().put("acme/app", new Secret("TOKEN", "v"));
        Path other = Files.createDirectory(state.resolveSibling(state.getFileName() + "-other"));
        try {
            SecretStore.encryptedFile(other);
            Files.copy(other.resolve("secrets-key.json"), state.resolve("secrets-key.json"),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } finally {
            deleteTree(other);
        }

        SecretStore reopened = SecretStore.encryptedFile(state);
        assertThatThrownBy(() -> reopened.get("acme/app", "TOKEN"))
                .isInstanceOf(SecretStoreException.class)
                .hasMessageContaining("were sealed with key")
                .hasMessageContaining("restore the original key file or set these secrets again");
        assertThat(reopened.names("acme/app")).containsExactly("TOKEN");
    }

    @Test
    void aCiphertextMovedToAnotherNameCannotBeDecrypted() throws IOException {
        SecretStore store = store();
        store.put("acme/app", new Secret("PUBLIC", "harmless"));
        store.put("acme/app", new Secret("DEPLOY_KEY", "crown-jewels"));
        Path file = state.resolve("secrets/" + sha256("acme/app") + ".json");
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = (ObjectNode) json.readTree(file.toFile());
        ObjectNode secrets = (ObjectNode) root.get("secrets");
        secrets.set("PUBLIC", secrets.get("DEPLOY_KEY"));
        json.writeValue(file.toFile(), root);

        assertThatThrownBy(() -> store.get("acme/app", "PUBLIC"))
                .isInstanceOf(SecretStoreException.class)
                .hasMessageContaining("secret PUBLIC")
                .hasMessageContaining("cannot be decrypted")
                .hasMessageNotContaining("crown-jewels");
    }

    @Test
    void aFileCopiedToAnotherRepositoryIsRefused() throws IOException {
        SecretStore store = store();
        store.put("acme/app", new Secret("TOKEN", "v"));
        Files.copy(state.resolve("secrets/" + sha256("acme/app") + ".json"),
                state.resolve("secrets/" + sha256("evil/fork") + ".json"));

        assertThatThrownBy(() -> store.get("evil/fork", "TOKEN"))
                .isInstanceOf(SecretStoreException.class)
                .hasMessageContaining("belongs to repository 'acme/app', not 'evil/fork'");
    }

    @Test
    void aTamperedCiphertextFailsClearly() throws IOException {
        SecretStore store = store();
        store.put("acme/app", new Secret("TOKEN", "value"));
        Path file = state.resolve("secrets/" + sha256("acme/app") + ".json");
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = (ObjectNode) json.readTree(file.toFile());
        ObjectNode token = (ObjectNode) root.get("secrets").get("TOKEN");
        byte[] sealed = Base64.getDecoder().decode(token.get("ciphertext").asText());
        sealed[0] ^= 1;
        token.put("ciphertext", Base64.getEncoder().encodeToString(sealed));
        json.writeValue(file.toFile(), root);

        assertThatThrownBy(() -> store.get("acme/app", "TOKEN"))
                .isInstanceOf(SecretStoreException.class)
                .hasMessageContaining("cannot be decrypted");
    }

    @Test
    void aCorruptKeyFileIsRefusedClearly() throws IOException {
        Path key = state.resolve("secrets-key.json");
        Files.writeString(key, "{\"format\":1,\"algorithm\":\"AES-256-GCM\",\"key\":\"c2hvcnQ=\"}");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));

        assertThatThrownBy(() -> SecretStore.encryptedFile(state))
                .isInstanceOf(SecretStoreException.class)
                .hasMessage("secrets key " + key + " holds 40 bits; it must hold 256");
    }

    private static String mode(Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
