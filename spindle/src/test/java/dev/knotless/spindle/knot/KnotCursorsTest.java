package dev.knotless.spindle.knot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KnotCursorsTest {

    @TempDir
    Path dir;

    @Test
    void aMissingFileIsAnEmptyStoreAndEachPutIsThereAfterARestart() throws IOException {
        Path file = dir.resolve("state/knot-cursors.json");
        KnotCursors cursors = KnotCursors.inFile(file);
        assertThat(cursors.get("knot.example.com")).isZero();

        cursors.put("knot.example.com", 1_750_000_000_123_456_789L);
        cursors.put("Other.Example.com:8443", 5);
        cursors.put("other.example.com:8443", 7);

        KnotCursors again = KnotCursors.inFile(file);
        assertThat(again.get("knot.example.com")).isEqualTo(1_750_000_000_123_456_789L);
        assertThat(again.get("OTHER.example.com:8443")).isEqualTo(7);
        assertThat(again.get("third.example.com")).isZero();
        assertThat(Files.readString(file)).contains("\"other.example.com:8443\" : 7");
    }

    @Test
    void theFileIsTheOwnersOnlyAndNoTemporaryFileIsLeft() throws IOException {
        Path file = dir.resolve("knot-cursors.json");
        Files.writeString(file, "{}");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

        KnotCursors.inFile(file).put("knot.example.com", 1);

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("knot-cursors.json");
        }
    }

    @Test
    void aFileThatIsNotCursorsIsRefusedNamingItAndWhy() throws IOException {
        Path file = dir.resolve("knot-cursors.json");
        for (String[] bad : new String[][] {
            {"not json", "not JSON"},
            {"[1, 2]", "not a JSON object"},
            {"{\"knot.example.com\": -1}", "not a whole number"},
            {"{\"knot.example.com\": \"12\"}", "not a whole number"},
            {"{\"knot.example.com\": 1.5}", "not a whole number"},
            {"{\"https://knot.example.com\": 1}", "a knot is host or host:port"},
            {"{\"knot.example.com\": 1, \"knot.example.com\": 2}", "not JSON"},
            {"{\"knot.example.com\": 1, \"KNOT.example.com\": 2}", "given twice"},
        }) {
            Files.writeString(file, bad[0]);
            assertThatThrownBy(() -> KnotCursors.inFile(file)).as(bad[0])
                    .isInstanceOf(IOException.class).hasMessageContaining(file.toString()).hasMessageContaining(bad[1]);
        }
    }

    @Test
    void aFileOfMoreKnotsThanKeptIsRefused() throws IOException {
        Path file = dir.resolve("knot-cursors.json");
        Files.writeString(file, IntStream.rangeClosed(0, KnotCursors.MAX_KNOTS)
                .mapToObj(i -> "\"k" + i + ".example.com\": " + i).collect(Collectors.joining(",", "{", "}")));

        assertThatThrownBy(() -> KnotCursors.inFile(file)).hasMessageContaining("10001 knots, over the 10000 kept");
    }

    @Test
    void atMostTenThousandKnotsAreKeptAndBadKnotsOrCursorsAreRefused() throws IOException {
        KnotCursors cursors = KnotCursors.inMemory();
        for (int i = 0; i < KnotCursors.MAX_KNOTS; i++) {
            cursors.put("k" + i + ".example.com", i);
        }
        cursors.put("k0.example.com", 99);
        assertThat(cursors.get("k0.example.com")).isEqualTo(99);
        assertThatThrownBy(() -> cursors.put("one-more.example.com", 1)).isInstanceOf(IOException.class)
                .hasMessageContaining("10000 knots");

        assertThatThrownBy(() -> cursors.put("knot.example.com/events", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cursors.put("k1.example.com", -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aFailedWriteKeepsNothingOfThePut() throws IOException {
        Path file = dir.resolve("knot-cursors.json");
        KnotCursors cursors = KnotCursors.inFile(file);
        cursors.put("knot.example.com", 1);
        Files.delete(file);
        Files.createDirectory(file); // a directory where the file goes: the move fails

        assertThatThrownBy(() -> cursors.put("knot.example.com", 2)).isInstanceOf(IOException.class);
        assertThat(cursors.get("knot.example.com")).isEqualTo(1);
    }
}
