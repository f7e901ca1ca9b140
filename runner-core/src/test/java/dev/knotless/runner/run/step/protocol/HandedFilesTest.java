package dev.knotless.runner.run.step.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.TransferLimitException;
import dev.knotless.plan.StepFiles;
import dev.knotless.runner.run.StepProtocolPlans;
import dev.knotless.tar.TarStreams;
import dev.knotless.time.Deadline;
import dev.knotless.time.Ticker;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.Test;

/** A step's files read back from the archive of their directory: what the run made there, within bounds, and nothing else. */
class HandedFilesTest {

    static final StepFileLayout LAYOUT = new StepFileLayout(StepProtocolPlans.GITHUB);

    @Test
    void theFilesTheRunMadeAreReadByPurposeWhateverTheEntriesAreCalled() throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put("./", null);
        entries.put("./output", bytes("A=1\n"));
        entries.put("env", bytes("B=2\n"));
        entries.put("./summary", bytes("# hi\n"));
        entries.put("state", new byte[0]);
        HandedFiles files = read(tar(entries));
        assertThat(files.files()).containsOnlyKeys(StepFiles.Purpose.OUTPUTS, StepFiles.Purpose.ENVIRONMENT,
                StepFiles.Purpose.SUMMARY, StepFiles.Purpose.STATE);
        assertThat(new String(files.files().get(StepFiles.Purpose.OUTPUTS), StandardCharsets.UTF_8)).isEqualTo("A=1\n");
    }

    @Test
    void aFileOverItsBoundIsRefusedFromItsHeaderWithoutReadingItsBytes() {
        long size = 2L << 30;
        HugeFileArchive archive = new HugeFileArchive("output", size);
        assertThatThrownBy(() -> read(archive)).isInstanceOf(TransferLimitException.class)
                .hasMessage("GITHUB_OUTPUT is 2 GiB; a step hands back at most 1 MiB through one file");
        assertThat(archive.contentRead()).as("bytes of its content read").isLessThan(64 * 1024);
    }

    @Test
    void aFileJustOverItsBoundIsRefusedAndOneAtItIsRead() throws IOException {
        assertThatThrownBy(() -> read(tar(Map.of("env", new byte[HandedFiles.MOST_BYTES + 1])))).hasMessageStartingWith(
                "GITHUB_ENV is 1.0 MiB; a step hands back at most 1 MiB");
        assertThat(read(tar(Map.of("env", new byte[HandedFiles.MOST_BYTES]))).files().get(StepFiles.Purpose.ENVIRONMENT))
                .hasSize(HandedFiles.MOST_BYTES);
    }

    @Test
    void anEntryThatWouldEscapeTheDirectoryIsRefused() {
        for (String name : new String[] {"../output", "./../../etc/passwd", "/etc/passwd", "a/../../b"}) {
            assertThatThrownBy(() -> read(tar(Map.of(name, bytes("x=1\n"))))).as(name)
                    .isInstanceOf(TransferLimitException.class).hasMessageContaining("would escape their directory");
        }
    }

    @Test
    void aLinkInAFilesPlaceOrAFileTwiceIsRefused() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = TarStreams.newOutput(bytes)) {
            TarArchiveEntry link = new TarArchiveEntry("output", TarConstants.LF_SYMLINK);
            link.setLinkName("/etc/shadow");
            tar.putArchiveEntry(link);
            tar.closeArchiveEntry();
        }
        assertThatThrownBy(() -> read(new ByteArrayInputStream(bytes.toByteArray())))
                .hasMessage("GITHUB_OUTPUT is not a regular file (a link or a directory took its place)");
        Map<String, byte[]> twice = new LinkedHashMap<>();
        twice.put("output", bytes("A=1\n"));
        twice.put("./output", bytes("A=2\n"));
        assertThatThrownBy(() -> read(tar(twice))).hasMessage("the archive of the step's files holds GITHUB_OUTPUT twice");
    }

    @Test
    void aFileTheRunDidNotMakeIsRefusedUnlessItIsEmpty() throws IOException {
        assertThatThrownBy(() -> read(tar(Map.of("output.tmp", bytes("x"))))).hasMessageContaining(
                "holds 'output.tmp', which the runner did not make");
        assertThat(read(tar(Map.of("output.lock", new byte[0]))).files()).isEmpty();
    }

    @Test
    void manyEntriesAreRefused() {
        Map<String, byte[]> many = new LinkedHashMap<>();
        for (int i = 0; i < HandedFiles.MOST_ENTRIES + 1; i++) {
            many.put("d" + i + "/", null);
        }
        assertThatThrownBy(() -> read(tar(many))).isInstanceOf(TransferLimitException.class).hasMessageContaining("entries");
    }

    private static HandedFiles read(InputStream archive) throws IOException {
        HandedFiles files = new HandedFiles(LAYOUT, Deadline.in(Duration.ofMinutes(1), Ticker.SYSTEM));
        files.readFrom(archive);
        return files;
    }

    /** A tar of {@code entries}: a null content makes a directory. */
    static InputStream tar(Map<String, byte[]> entries) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = TarStreams.newOutput(bytes)) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                TarArchiveEntry entry = new TarArchiveEntry(e.getKey(), true);
                if (e.getValue() != null) {
                    entry.setSize(e.getValue().length);
                }
                tar.putArchiveEntry(entry);
                if (e.getValue() != null) {
                    tar.write(e.getValue());
                }
                tar.closeArchiveEntry();
            }
        }
        return new ByteArrayInputStream(bytes.toByteArray());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
