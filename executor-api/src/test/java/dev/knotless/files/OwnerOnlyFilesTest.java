package dev.knotless.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OwnerOnlyFilesTest {

    @TempDir
    Path dir;

    @Test
    void aWrittenFileIsTheOwnersAlone() throws IOException {
        Path file = dir.resolve("state.json");

        OwnerOnlyFiles.write(file, bytes("{}"));

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(Files.readString(file)).isEqualTo("{}");
    }

    @Test
    void aSecondWriteReplacesTheFirstAndLeavesNoTemporaryFile() throws IOException {
        Path file = dir.resolve("state.json");

        OwnerOnlyFiles.write(file, bytes("first, and longer than the second"));
        OwnerOnlyFiles.write(file, bytes("second"));

        assertThat(Files.readString(file)).isEqualTo("second");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(names()).containsExactly("state.json");
    }

    @Test
    void aWriteNarrowsAFileOthersCouldRead() throws IOException {
        Path file = Files.writeString(dir.resolve("state.json"), "old");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

        OwnerOnlyFiles.write(file, bytes("new"));

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }

    @Test
    void aWriteIntoAMissingDirectoryNamesTheFileAndLeavesNothing() {
        Path file = dir.resolve("missing").resolve("state.json");

        assertThatThrownBy(() -> OwnerOnlyFiles.write(file, bytes("{}")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(file.toString());
        assertThatThrownBy(() -> OwnerOnlyFiles.createIfAbsent(file, bytes("{}")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(file.toString());
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void createIfAbsentWritesOnceAndKeepsWhatIsThere() throws IOException {
        Path key = dir.resolve("key");

        assertThat(OwnerOnlyFiles.createIfAbsent(key, bytes("first"))).isTrue();
        assertThat(OwnerOnlyFiles.createIfAbsent(key, bytes("second"))).isFalse();

        assertThat(Files.readString(key)).isEqualTo("first");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key))).isEqualTo("rw-------");
        assertThat(names()).containsExactly("key");
    }

    @Test
    void directoriesMadeWithTheDirectoryModeAreTheOwnersAlone() throws IOException {
        Path made = Files.createDirectories(dir.resolve("a").resolve("b"), OwnerOnlyFiles.DIRECTORY);

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(made))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(made.getParent()))).isEqualTo("rwx------");
    }

    private List<String> names() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
