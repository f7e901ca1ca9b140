package dev.knotless.cache;

import dev.knotless.testkit.FakeClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.tar.DirectoryTar;
import dev.knotless.tar.TarExtractor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompressionTest {

    private static final CacheKey KEY = new CacheKey("acme/widgets", "ci:/root/.m2");

    @TempDir
    Path temp;

    private final FakeClock clock = new FakeClock(Instant.parse("2026-12-01T10:00:00Z"));

    @Test
    void aTarWithModesSymlinksAndEmptyDirectoriesComesBackByteForByte() throws IOException {
        Path tree = temp.resolve("tree");
        Files.createDirectories(tree.resolve("bin"));
        Files.createDirectories(tree.resolve("empty/nested"));
        Files.writeString(tree.resolve("bin/tool"), "#!/bin/sh\necho hi\n");
        Files.setPosixFilePermissions(tree.resolve("bin/tool"), PosixFilePermissions.fromString("rwxr-x---"));
        Files.writeString(tree.resolve("secret.txt"), "only me\n");
        Files.setPosixFilePermissions(tree.resolve("secret.txt"), PosixFilePermissions.fromString("rw-------"));
        Files.createSymbolicLink(tree.resolve("tool"), Path.of("bin/tool"));
        Files.createSymbolicLink(tree.resolve("dangling"), Path.of("not/there"));
        ByteArrayOutputStream tar = new ByteArrayOutputStream();
        DirectoryTar.of(tree).writeTo(tar);
        CacheStore store = new CacheStore(temp.resolve("cache"), 1 << 30, clock);

        store.promote(Tars.upper(store, KEY, "run-1", tar.toByteArray()), "main");
        byte[] restored = Tars.restore(store, store.base(KEY, "main", "main").orElseThrow());
        Path out = temp.resolve("out");
        TarExtractor.into(out, 1 << 20).readFrom(new ByteArrayInputStream(restored));

        assertThat(Tars.sha(restored)).isEqualTo(Tars.sha(tar.toByteArray()));
        assertThat(Files.readString(out.resolve("bin/tool"))).isEqualTo("#!/bin/sh\necho hi\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out.resolve("bin/tool"))))
                .isEqualTo("rwxr-x---");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out.resolve("secret.txt"))))
                .isEqualTo("rw-------");
        assertThat(Files.readSymbolicLink(out.resolve("tool"))).isEqualTo(Path.of("bin/tool"));
        assertThat(Files.readSymbolicLink(out.resolve("dangling"))).isEqualTo(Path.of("not/there"));
        assertThat(out.resolve("empty/nested")).isEmptyDirectory();
        assertThat(Files.isSymbolicLink(out.resolve("tool"))).isTrue();
        assertThat(Files.isRegularFile(out.resolve("bin/tool"), LinkOption.NOFOLLOW_LINKS)).isTrue();
    }

    @Test
    void compressionShrinksACompressibleTar() throws IOException {
        Path tree = temp.resolve("m2");
        Random random = new Random(7);
        String[] words = {"<dependency>", "<groupId>org.apache</groupId>", "<version>1.2.3</version>",
            "public", "static", "final", "class", "import java.util.List;", "return", "{", "}", "\n"};
        for (int f = 0; f < 40; f++) {
            StringBuilder text = new StringBuilder();
            while (text.length() < 64 * 1024) {
                text.append(words[random.nextInt(words.length)]).append(' ');
            }
            Path file = tree.resolve("repo/org/lib" + f % 7 + "/lib-" + f + ".pom");
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        }
        ByteArrayOutputStream tar = new ByteArrayOutputStream();
        DirectoryTar.of(tree).writeTo(tar);
        CacheStore store = new CacheStore(temp.resolve("cache"), 1 << 30, clock);

        Upper upper = Tars.upper(store, KEY, "run-1", tar.toByteArray());

        double ratio = (double) upper.uncompressedBytes() / upper.bytes();
        System.out.printf(Locale.ROOT, "compressible tar: %d bytes -> %d bytes compressed, ratio %.1f:1%n",
                upper.uncompressedBytes(), upper.bytes(), ratio);
        assertThat(upper.uncompressedBytes()).isEqualTo(tar.size());
        assertThat(ratio).isGreaterThan(3.0);
        store.promote(upper, "main");
        assertThat(store.totalBytes()).isEqualTo(upper.bytes());
        Layer layer = store.base(KEY, "main", "main").orElseThrow();
        assertThat(Tars.sha(Tars.restore(store, layer))).isEqualTo(Tars.sha(tar.toByteArray()));
    }

    @Test
    void aCorruptLayerFailsToRestoreInsteadOfStreamingGarbage() throws IOException {
        CacheStore store = new CacheStore(temp.resolve("cache"), 1 << 30, clock);
        store.promote(Tars.upper(store, KEY, "run-1", Tars.withFile("a", Tars.random(1, 300_000))), "main");
        Layer layer = store.base(KEY, "main", "main").orElseThrow();
        Path data = new Layout(temp.resolve("cache")).data(KEY.id(), Layout.id("main"));
        byte[] bytes = Files.readAllBytes(data);
        bytes[bytes.length / 2] ^= 0x5a;
        Files.write(data, bytes);

        assertThatThrownBy(() -> Tars.restore(store, layer)).isInstanceOf(IOException.class);
    }

    @Test
    void aTruncatedLayerFailsToRestore() throws IOException {
        CacheStore store = new CacheStore(temp.resolve("cache"), 1 << 30, clock);
        store.promote(Tars.upper(store, KEY, "run-1", Tars.withText("a", "hello ".repeat(10_000))), "main");
        Layer layer = store.base(KEY, "main", "main").orElseThrow();
        Path data = new Layout(temp.resolve("cache")).data(KEY.id(), Layout.id("main"));
        byte[] bytes = Files.readAllBytes(data);
        Files.write(data, java.util.Arrays.copyOf(bytes, bytes.length - 8));

        assertThatThrownBy(() -> Tars.restore(store, layer)).isInstanceOf(IOException.class);
    }

    @Test
    void theSinkStoresTheStreamAsItIsWithoutParsingIt() throws IOException {
        CacheStore store = new CacheStore(temp.resolve("cache"), 1 << 30, clock);
        byte[] notATar = "whatever the run sent".getBytes(StandardCharsets.UTF_8);

        store.promote(Tars.upper(store, KEY, "run-1", notATar), "main");

        Layer layer = store.base(KEY, "main", "main").orElseThrow();
        assertThat(Tars.sha(Tars.restore(store, layer))).isEqualTo(Tars.sha(notATar));
    }
}
