package dev.knotless.runner.run.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.secrets.Masker;
import dev.knotless.tar.TarStreams;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.Test;

/** {@link LayerScan}: a granted value found in a cache layer's tar stream wherever it sits, the bytes untouched. */
class LayerScanTest {

    static final String VALUE = "ghp_7Qx9hunter2Zulu";

    /** An archive entry: a regular file, or a symlink when {@code link} is set. */
    record Item(String name, byte[] content, String link) {
        static Item file(String name, String content) {
            return new Item(name, content.getBytes(StandardCharsets.UTF_8), null);
        }
    }

    static byte[] tar(Item... items) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = TarStreams.newOutput(bytes)) {
            for (Item item : items) {
                TarArchiveEntry entry = item.link() == null ? new TarArchiveEntry(item.name())
                        : new TarArchiveEntry(item.name(), TarConstants.LF_SYMLINK);
                if (item.link() != null) {
                    entry.setLinkName(item.link());
                } else {
                    entry.setSize(item.content().length);
                }
                tar.putArchiveEntry(entry);
                if (item.link() == null) {
                    tar.write(item.content());
                }
                tar.closeArchiveEntry();
            }
            tar.finish();
        }
        return bytes.toByteArray();
    }

    /** Reads {@code tar} through a scan in reads of {@code chunk} bytes; checks the bytes pass unchanged. */
    static LayerScan scanned(byte[] tar, int chunk) throws IOException {
        LayerScan scan = new LayerScan(Masker.of(List.of(VALUE)));
        ByteArrayOutputStream passed = new ByteArrayOutputStream();
        try (InputStream in = scan.watch(new ByteArrayInputStream(tar))) {
            byte[] buffer = new byte[chunk];
            for (int n; (n = in.read(buffer, 0, chunk)) >= 0; ) {
                passed.write(buffer, 0, n);
            }
        }
        assertThat(passed.toByteArray()).isEqualTo(tar);
        return scan;
    }

    @Test
    void aValueSplitAcrossTarBlocksIsFoundAndItsFileNamed() throws IOException {
        byte[] content = new byte[3000];
        Arrays.fill(content, (byte) 'a');
        byte[] value = VALUE.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(value, 0, content, 512 - 7, value.length); // straddles the first block boundary
        byte[] tar = tar(Item.file("./deps/before.txt", "nothing"), new Item("./deps/big.bin", content, null),
                Item.file("deps/after.txt", "nothing"));
        for (int chunk : new int[] {1, 7, 512, 8192}) {
            LayerScan scan = scanned(tar, chunk);
            assertThat(scan.found()).as("reads of %d bytes", chunk).isTrue();
            assertThat(scan.holders("/work")).isEqualTo("/work/deps/big.bin");
        }
    }

    @Test
    void theBase64FormIsFoundAtEveryOffset() throws IOException {
        for (String lead : List.of("", "x", "xy")) {
            String b64 = Base64.getEncoder().encodeToString((lead + VALUE).getBytes(StandardCharsets.UTF_8));
            LayerScan scan = scanned(tar(Item.file(".config/auth.json", "{\"auth\":\"" + b64 + "\"}")), 100);
            assertThat(scan.found()).as("after %s", lead).isTrue();
            assertThat(scan.holders("/root/")).isEqualTo("/root/.config/auth.json");
        }
    }

    @Test
    void aValueInAFileNameOrALinkTargetIsFoundOnThatEntry() throws IOException {
        String longDir = "deps/" + "d".repeat(120) + "/";
        LayerScan scan = scanned(tar(Item.file("deps/plain.txt", "x"), Item.file(longDir + "key-" + VALUE, "x"),
                Item.file("deps/" + VALUE + ".txt", "x"), new Item("deps/link", new byte[0], "/tmp/" + VALUE)), 64);
        assertThat(scan.found()).isTrue();
        assertThat(scan.holders("/w")).isEqualTo("/w/" + longDir + "key-" + VALUE + ", /w/deps/" + VALUE + ".txt, /w/deps/link");
    }

    @Test
    void aLayerWithoutTheValueIsFoundClean() throws IOException {
        LayerScan scan = scanned(tar(Item.file("deps/a.txt", VALUE.substring(1)), Item.file("deps/b.txt",
                VALUE.substring(0, VALUE.length() - 1))), 512);
        assertThat(scan.found()).isFalse();
        assertThat(scan.holders("/w")).isEmpty();
    }

    @Test
    void aMalformedArchiveIsStillScannedWhole() throws IOException {
        byte[] junk = ("not a tar at all " + VALUE + " trailing").getBytes(StandardCharsets.UTF_8);
        assertThat(scanned(junk, 5).found()).isTrue();
    }
}
