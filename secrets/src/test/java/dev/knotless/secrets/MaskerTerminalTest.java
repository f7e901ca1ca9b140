package dev.knotless.secrets;

import static dev.knotless.executor.OutputSink.Stream.STDERR;
import static dev.knotless.executor.OutputSink.Stream.STDOUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.OutputSink.Stream;
import dev.knotless.testkit.RecordingOutput;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Values as a terminal or the status page shows them, which is not always as the bytes hold them:
 * with control sequences inside (colours, hyperlinks), or written half to stdout and half to
 * stderr, which the log records merged in the order of the writes.
 */
class MaskerTerminalTest {

    private static final String SECRET = "hunter2-Xq9!zz";
    private static final String OSC8 = "\u001b]8;;https://example.com/build/42\u001b\\";

    @ParameterizedTest
    @ValueSource(strings = {"\u001b[1m", "\u001b[0;31m", "\u001b[01;31m\u001b[K", OSC8, "\u001b]8;;\u0007", "\u001bM"})
    void aValueSplitByASequenceAtAnyPositionIsMaskedAsOneRun(String sequence) {
        Masker masker = Masker.of(List.of(SECRET));
        for (int cut = 1; cut < SECRET.length(); cut++) {
            String text = "before " + SECRET.substring(0, cut) + sequence + SECRET.substring(cut) + " after";
            assertThat(whole(masker, text)).as("cut %d", cut).isEqualTo("before *** after");
            assertThat(byteByByte(masker, text)).as("cut %d, byte by byte", cut).isEqualTo("before *** after");
            byte[] bytes = bytes(text);
            for (int split = 0; split <= bytes.length; split++) {
                assertThat(twoWrites(masker, bytes, split)).as("cut %d, split %d", cut, split)
                        .isEqualTo("before *** after");
            }
        }
    }

    @Test
    void aValueSplitBySeveralSequencesIsMaskedWithThemAndColoursAroundItPass() {
        String text = "\u001b[1;31mERROR\u001b[0m token=\u001b[32m"
                + "hun\u001b[1mter\u001b[0m" + OSC8 + "2-Xq\u001b]8;;\u001b\\9!zz\u001b[0m done";

        assertThat(whole(Masker.of(List.of(SECRET)), text))
                .isEqualTo("\u001b[1;31mERROR\u001b[0m token=\u001b[32m***\u001b[0m done");
    }

    @Test
    void coloursOutsideValuesPassUnchanged() {
        String text = "\u001b[1;31mERROR\u001b[0m " + OSC8 + "link\u001b]8;;\u001b\\ \u001b[32m" + SECRET + "\u001b[0m\n";

        assertThat(whole(Masker.of(List.of(SECRET)), text))
                .isEqualTo("\u001b[1;31mERROR\u001b[0m " + OSC8 + "link\u001b]8;;\u001b\\ \u001b[32m***\u001b[0m\n");
    }

    @Test
    void aValueInsideAHyperlinksAddressIsStillMasked() {
        String text = "\u001b]8;;https://example.com/?t=" + SECRET + "\u001b\\here\u001b]8;;\u001b\\";

        assertThat(whole(Masker.of(List.of(SECRET)), text))
                .isEqualTo("\u001b]8;;https://example.com/?t=***\u001b\\here\u001b]8;;\u001b\\");
    }

    @Test
    void brokenUnterminatedAndOverlongSequencesAreOrdinaryBytes() {
        Masker masker = Masker.of(List.of(SECRET));
        String overlongCsi = "\u001b[" + "1;".repeat(40) + "m";
        String overlongOsc = "\u001b]8;;" + "x".repeat(VisibleScan.OSC_MAX) + "\u001b\\";
        for (String ordinary : List.of("\u001b[1\n", "\u001bx", "\u001b]8;;x\n", "\u001b]8;;x\u001bz", overlongCsi, overlongOsc)) {
            String text = "a " + SECRET.substring(0, 6) + ordinary + SECRET.substring(6) + " b";
            assertThat(whole(masker, text)).as("%s", ordinary).isEqualTo(text);
            assertThat(byteByByte(masker, text)).as("%s, byte by byte", ordinary).isEqualTo(text);
        }
        // A sequence left open at the end of the output is released as it is.
        assertThat(whole(masker, "x " + SECRET.substring(0, 6) + "\u001b[1;3")).isEqualTo("x hunter\u001b[1;3");
        // An ESC that breaks an OSC may begin the sequence that follows it.
        assertThat(whole(masker, "x \u001b]8;\u001b[1mhun\u001b[0mter2-Xq9!zz")).isEqualTo("x \u001b]8;\u001b[1m***");
    }

    @Test
    void sequencesMakeAWallWhereTheyOutweighTheBound() {
        Masker masker = Masker.of(List.of(SECRET));
        String many = "\u001b[1m".repeat(VisibleScan.SKIPPED_MAX / 4 + 1);
        String text = SECRET.substring(0, 6) + many + SECRET.substring(6);

        assertThat(whole(masker, text)).isEqualTo(text);
        assertThat(byteByByte(masker, text)).isEqualTo(text);
        assertThat(whole(masker, SECRET.substring(0, 6) + "\u001b[1m".repeat(100) + SECRET.substring(6))).isEqualTo("***");
    }

    @Test
    void aValueHalfOnStdoutAndHalfOnStderrInTheOrderWrittenIsMasked() {
        Masker masker = Masker.of(List.of(SECRET));
        for (int cut = 1; cut < SECRET.length(); cut++) {
            for (Stream first : Stream.values()) {
                Stream second = first == STDOUT ? STDERR : STDOUT;
                RecordingOutput out = new RecordingOutput();
                try (MaskingSink sink = masker.newStream(out)) {
                    write(sink, first, "one " + SECRET.substring(0, cut));
                    write(sink, second, SECRET.substring(cut) + " two");
                    write(sink, first, " three");
                }
                String firstText = first == STDOUT ? out.stdout() : out.stderr();
                String secondText = first == STDOUT ? out.stderr() : out.stdout();
                assertThat(firstText).as("cut %d, %s first", cut, first).isEqualTo("one *** three");
                assertThat(secondText).as("cut %d, %s first", cut, first).isEqualTo("*** two");
            }
        }
    }

    @Test
    void aValueAlternatingBetweenTheStreamsByteByByteIsMasked() {
        RecordingOutput out = new RecordingOutput();
        byte[] bytes = bytes("<" + SECRET + ">");
        try (MaskingSink sink = Masker.of(List.of(SECRET)).newStream(out)) {
            for (int i = 0; i < bytes.length; i++) {
                sink.write(i % 2 == 0 ? STDOUT : STDERR, bytes, i, 1);
            }
        }

        assertThat(out.stdout()).isEqualTo("<***");
        assertThat(out.stderr()).isEqualTo("***>");
    }

    private static void write(MaskingSink sink, Stream stream, String text) {
        byte[] b = bytes(text);
        sink.write(stream, b, 0, b.length);
    }

    private static String whole(Masker masker, String text) {
        return twoWrites(masker, bytes(text), 0);
    }

    private static String twoWrites(Masker masker, byte[] bytes, int split) {
        RecordingOutput out = new RecordingOutput();
        try (MaskingSink sink = masker.newStream(out)) {
            sink.write(STDOUT, bytes, 0, split);
            sink.write(STDOUT, bytes, split, bytes.length - split);
        }
        return out.stdout();
    }

    private static String byteByByte(Masker masker, String text) {
        byte[] bytes = bytes(text);
        RecordingOutput out = new RecordingOutput();
        try (MaskingSink sink = masker.newStream(out)) {
            for (int i = 0; i < bytes.length; i++) {
                sink.write(STDOUT, new byte[] {bytes[i]}, 0, 1);
            }
        }
        return out.stdout();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
