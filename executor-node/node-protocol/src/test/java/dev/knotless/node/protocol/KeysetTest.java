package dev.knotless.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.KeyPair;
import java.time.Instant;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeysetTest {

    @TempDir
    Path dir;

    final KeyPair one = Ed25519Keys.generate();
    final KeyPair two = Ed25519Keys.generate();

    static String line(String id, KeyPair pair) {
        return id + " " + Base64.getEncoder().withoutPadding().encodeToString(Ed25519Keys.raw(pair.getPublic())) + "\n";
    }

    @Test
    void parsesSeveralKeysCommentsAndBlankLines() {
        Keyset keys = Keyset.parse("# runner keys\n\n" + line("runner-2026-01", one) + "  " + line("runner-2026-02", two), "keys");

        assertThat(keys.find("runner-2026-01")).contains(one.getPublic());
        assertThat(keys.find("runner-2026-02")).contains(two.getPublic());
        assertThat(keys.find("runner-2025-12")).isEmpty();
    }

    @Test
    void theExampleInTheReferenceParses() throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve("docs/reference"))) {
            root = root.getParent();
        }
        String doc = Files.readString(root.resolve("docs/reference/node.md"));
        String section = doc.substring(doc.indexOf("## Keyset file"));
        String example = section.substring(section.indexOf("```text\n") + 8, section.indexOf("```", section.indexOf("```text\n") + 8));

        Keyset keys = Keyset.parse(example, "docs/reference/node.md");

        assertThat(keys.find("runner-2026-01")).isPresent();
        assertThat(keys.find("runner-2026-02")).as("unpadded base64").isPresent();
    }

    @Test
    void badLinesAreNamedByFileAndLine() {
        assertThatThrownBy(() -> Keyset.parse(line("a", one) + "b\n", "keys"))
                .hasMessage("keys:2: expected 'KEY_ID BASE64', found 1 fields");
        assertThatThrownBy(() -> Keyset.parse(line("a", one) + line("a", two), "keys"))
                .hasMessage("keys:2: key id a appears twice");
        assertThatThrownBy(() -> Keyset.parse("bad/id AAAA\n", "keys"))
                .hasMessageStartingWith("keys:1: key id 'bad/id' is invalid");
        assertThatThrownBy(() -> Keyset.parse("a AAAA\n", "keys"))
                .hasMessage("keys:1: public key holds 3 bytes, an Ed25519 key is 32");
        assertThatThrownBy(() -> Keyset.parse("# nothing\n", "keys")).hasMessage("keys: no keys");
        // 32 bytes that are not a point on the curve: y = 2 gives a non-square x², and y = p + 1 is out of range.
        assertThatThrownBy(() -> Keyset.parse("a AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n", "keys"))
                .hasMessage("keys:1: not an Ed25519 public key: the bytes are not a point on the curve");
        assertThatThrownBy(() -> Keyset.parse("a 7v///////////////////////////////////////38=\n", "keys"))
                .hasMessage("keys:1: not an Ed25519 public key: the bytes are not a point on the curve");
    }

    @Test
    void aKeysetFileNamesPublicKeyFilesWithTheirIdOrTheIdKeygenWroteBesideThem(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("keys"));
        KeyPair first = Ed25519Keys.generate();
        KeyPair second = Ed25519Keys.generate();
        KeyPair third = Ed25519Keys.generate();
        KeyFiles.writePair(dir.resolve("keys/runner-a"), first, "runner-a.2026");
        KeyFiles.writePair(dir.resolve("keys/runner-b"), second, null);
        Files.writeString(dir.resolve("keys/loose.pub"), Ed25519Keys.encodeBase64Key(Ed25519Keys.raw(third.getPublic())) + "\n");
        Path file = dir.resolve("trusted-keys");
        Files.writeString(file, "@keys/runner-a.pub\nchosen-id @" + dir.resolve("keys/runner-b.pub") + "\n@keys/loose.pub\n");

        Keyset keys = Keyset.read(file);

        assertThat(keys.find("runner-a.2026")).as("the id from runner-a.id").contains(first.getPublic());
        assertThat(keys.find("chosen-id")).as("the id on the line, an absolute path").contains(second.getPublic());
        assertThat(keys.find(Ed25519Keys.keyIdOf(Ed25519Keys.raw(third.getPublic())))).as("no .id: the default id")
                .contains(third.getPublic());
        assertThat(keys.keys()).hasSize(3);

        Files.writeString(file, "@keys/missing.pub\n");
        assertThatThrownBy(() -> Keyset.read(file)).hasMessageStartingWith(file + ":1: cannot read the public key file");
        assertThatThrownBy(() -> Keyset.parse("@keys/runner-a.pub\n", "keys"))
                .hasMessage("keys:1: a key named by its file (@keys/runner-a.pub) is only allowed in a keyset file");
    }

    @Test
    void aKeysetFileIsReReadWhenReplacedAndABrokenVersionKeepsTheLastGoodOne() throws Exception {
        Path file = dir.resolve("trusted-keys");
        Files.writeString(file, line("old", one));
        KeysetFile keys = new KeysetFile(file);
        assertThat(keys.find("old")).isPresent();

        replace(file, line("old", one) + line("new", two), 1);
        assertThat(keys.find("new")).contains(two.getPublic());

        replace(file, line("new", two), 2);
        assertThat(keys.find("old")).isEmpty();
        assertThat(keys.find("new")).isPresent();

        replace(file, "new not-a-key\n", 3);
        assertThat(keys.find("new")).contains(two.getPublic());
        assertThat(keys.lastError()).contains("trusted-keys:1");
    }

    private void replace(Path file, String text, int generation) throws Exception {
        Path next = dir.resolve("trusted-keys.next");
        Files.writeString(next, text);
        // Distinct times even on file systems with coarse timestamps.
        Files.setLastModifiedTime(next, FileTime.from(Instant.parse("2026-01-01T00:00:00Z").plusSeconds(generation)));
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
