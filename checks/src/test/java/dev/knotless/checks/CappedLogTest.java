package dev.knotless.checks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CappedLogTest {

    @TempDir Path dir;

    @Test
    void aLogUnderTheCapIsKeptWhole() throws Exception {
        Path file = dir.resolve("a.log");
        try (CappedLog log = new CappedLog(file, 1024)) {
            for (int i = 0; i < 20; i++) {
                log.write("line " + i + "\n");
            }
        }
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            expected.append("line ").append(i).append('\n');
        }
        assertThat(Files.readString(file)).isEqualTo(expected.toString());
    }

    @Test
    void aLogOverTheCapKeepsHeadAndTailWithAMarkerAndStaysUnderTheCap() throws Exception {
        Path file = dir.resolve("b.log");
        int cap = CappedLog.DEFAULT_CAP;
        long total = 0;
        try (CappedLog log = new CappedLog(file, cap)) {
            for (int i = 0; i < 200_000; i++) {
                byte[] line = ("line " + i + "\n").getBytes(StandardCharsets.UTF_8);
                log.write(line, 0, line.length);
                total += line.length;
            }
        }
        String text = Files.readString(file);
        assertThat(Files.size(file)).isLessThanOrEqualTo(cap);
        assertThat(text).startsWith("line 0\nline 1\n");
        assertThat(text).endsWith("line 199998\nline 199999\n");
        assertThat(text).containsPattern("\\[\\.\\.\\. \\d+ bytes cut: the log keeps the first 524288 and the last \\d+ bytes \\.\\.\\.\\]");
        long cut = Long.parseLong(text.replaceAll("(?s).*\\[\\.\\.\\. (\\d+) bytes cut.*", "$1"));
        String marker = text.substring(text.indexOf("\n[... "), text.indexOf("...]\n") + 5);
        assertThat(Files.size(file) - marker.getBytes(StandardCharsets.UTF_8).length + cut).isEqualTo(total);
    }

    @Test
    void writesLargerThanTheTailStillKeepTheLastBytes() throws Exception {
        Path file = dir.resolve("c.log");
        byte[] big = new byte[5000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) ('a' + i % 26);
        }
        try (CappedLog log = new CappedLog(file, 1024)) {
            log.write(big, 0, big.length);
            log.write("END");
        }
        String text = Files.readString(file);
        assertThat(text).endsWith(new String(big, big.length - 100, 100, StandardCharsets.US_ASCII) + "END");
        assertThat(text).startsWith(new String(big, 0, 512, StandardCharsets.US_ASCII));
        assertThat(Files.size(file)).isLessThanOrEqualTo(1024);
    }

    @Test
    void aResumedLogIsCutBackToWhereItsProcessRecordedAndGoesOnAfter() throws Exception {
        Path file = dir.resolve("d.log");
        CappedLog first = new CappedLog(file, 1024);
        first.write("kept 1\n");
        long recorded = first.written();
        first.write("written again after the restart\n");
        // the process dies here: no close

        try (CappedLog resumed = CappedLog.resume(file, 1024, recorded)) {
            assertThat(resumed.written()).isEqualTo(recorded);
            resumed.write("written again after the restart\nkept 2\n");
        }
        assertThat(Files.readString(file)).isEqualTo("kept 1\nwritten again after the restart\nkept 2\n");
    }

    @Test
    void aResumedLogPastItsHeadCountsTheTailItsProcessHeldAsCut() throws Exception {
        Path file = dir.resolve("e.log");
        int cap = 1024;
        CappedLog first = new CappedLog(file, cap);
        byte[] line = "0123456789abcdef\n".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 40; i++) {
            first.write(line, 0, line.length); // 680 bytes: the head (512) is on disk, the rest in memory
        }
        long recorded = first.written();

        try (CappedLog resumed = CappedLog.resume(file, cap, recorded)) {
            resumed.write("after\n");
        }
        String text = Files.readString(file);
        assertThat(text).startsWith("0123456789abcdef\n").endsWith("\nafter\n");
        assertThat(text).contains("[... " + (recorded - 512) + " bytes cut");
    }

    @Test
    void aLogShorterThanTheRecordedLengthIsNotResumed() throws Exception {
        Path file = dir.resolve("f.log");
        Files.writeString(file, "short\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> CappedLog.resume(file, 1024, 100))
                .isInstanceOf(java.io.IOException.class).hasMessageContaining("fewer than the 100");
    }
}
