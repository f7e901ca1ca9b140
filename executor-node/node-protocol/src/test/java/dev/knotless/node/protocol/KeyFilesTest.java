package dev.knotless.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeyFilesTest {

    @TempDir
    Path dir;

    @Test
    void writesAPrivateKeyOnlyItsOwnerCanReadAndAPublicKeyThatReadsBack() throws Exception {
        KeyPair pair = Ed25519Keys.generate();

        KeyFiles.Written written = KeyFiles.writePair(dir.resolve("runner"), pair, null);

        assertThat(written.privateKey()).isEqualTo(dir.resolve("runner.key"));
        assertThat(written.publicKey()).isEqualTo(dir.resolve("runner.pub"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(written.privateKey()))).isEqualTo("rw-------");
        assertThat(written.keyId()).isEqualTo(Ed25519Keys.keyIdOf(Ed25519Keys.raw(pair.getPublic())));
        assertThat(Ed25519Keys.readPublicKey(written.publicKey())).isEqualTo(pair.getPublic());
        assertThat(Ed25519Keys.raw(KeyFiles.readPrivateKey(written.privateKey()))).isEqualTo(Ed25519Keys.raw(pair.getPrivate()));
        assertThat(Files.readString(written.publicKey())).matches("[A-Za-z0-9+/]{43}=\n");
        assertThat(written.keyIdFile()).isEqualTo(dir.resolve("runner.id"));
        assertThat(Files.readString(written.keyIdFile())).isEqualTo(written.keyId() + "\n");
        assertThat(KeyFiles.keyIdBeside(written.publicKey())).contains(written.keyId());
    }

    @Test
    void refusesToReplaceKeysOrReadAPrivateKeyOthersCanRead() throws Exception {
        KeyFiles.Written written = KeyFiles.writePair(dir.resolve("node"), Ed25519Keys.generate(), "node-1");
        assertThat(written.keyId()).isEqualTo("node-1");

        assertThatThrownBy(() -> KeyFiles.writePair(dir.resolve("node"), Ed25519Keys.generate(), null))
                .isInstanceOf(FileAlreadyExistsException.class).hasMessageContaining("node.key already exists");

        Files.setPosixFilePermissions(written.privateKey(), PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> KeyFiles.readPrivateKey(written.privateKey()))
                .hasMessageContaining("has mode rw-r--r--; it must be readable by its owner only (chmod 600)");

        Files.delete(written.privateKey());
        Files.delete(written.publicKey());
        assertThatThrownBy(() -> KeyFiles.writePair(dir.resolve("node"), Ed25519Keys.generate(), null))
                .isInstanceOf(FileAlreadyExistsException.class).hasMessageContaining("node.id already exists");
        assertThat(written.privateKey()).as("nothing written when one file exists").doesNotExist();
    }
}
