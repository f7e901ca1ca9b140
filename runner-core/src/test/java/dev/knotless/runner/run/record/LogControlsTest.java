package dev.knotless.runner.run.record;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.OutputSink;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LogControlsTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final LogControls controls = new LogControls((stream, buffer, offset, length) ->
            (stream == OutputSink.Stream.STDOUT ? out : err).write(buffer, offset, length));

    private String through(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        controls.write(OutputSink.Stream.STDOUT, bytes, 0, bytes.length);
        controls.flush();
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void colourSequencesPass() {
        String coloured = "\u001b[1;31mred bold\u001b[0m plain \u001b[38;5;208morange\u001b[m \u001b[38:2::1:2:3mtrue\u001b[39m\n";
        assertThat(through(coloured)).isEqualTo(coloured);
    }

    @Test
    void otherEscapeSequencesBecomeSpacesOfTheSameLength() {
        assertThat(through("a\u001b[2Jb\u001b[?25lc\u001b[1Ad")).isEqualTo("a    b      c    d");
        out.reset();
        // an OSC title or hyperlink: its ESC and BEL go, the text stays visible
        assertThat(through("\u001b]0;title\u0007x\n")).isEqualTo(" ]0;title x\n");
    }

    @Test
    void controlCharactersAreNeutralisedButTabsAndNewlinesStay() {
        assertThat(through("a\u0000b\u0007c\u0008d\u007fe\tf\ng")).isEqualTo("a b c d e\tf\ng");
        out.reset();
        assertThat(through("crlf\r\nprogress 1\rprogress 2\r")).isEqualTo("crlf \nprogress 1\nprogress 2\n");
    }

    @Test
    void c1ControlsInUtf8AreNeutralisedOtherTextIsNot() {
        assertThat(through("x\u009b2Jy é ü ¢ 漢\n")).isEqualTo("x  2Jy é ü ¢ 漢\n");
    }

    @Test
    void aSequenceSplitAcrossWritesIsJudgedWhole() {
        byte[] bytes = "a\u001b[3".getBytes(StandardCharsets.UTF_8);
        controls.write(OutputSink.Stream.STDOUT, bytes, 0, bytes.length);
        assertThat(out.toString(StandardCharsets.UTF_8)).as("the sequence is held until it ends").isEqualTo("a");
        byte[] rest = "2mred".getBytes(StandardCharsets.UTF_8);
        controls.write(OutputSink.Stream.STDOUT, rest, 0, rest.length);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("a\u001b[32mred");
    }

    @Test
    void streamsAreHeldApart() {
        byte[] half = "\u001b[3".getBytes(StandardCharsets.UTF_8);
        controls.write(OutputSink.Stream.STDOUT, half, 0, half.length);
        byte[] e = "err\n".getBytes(StandardCharsets.UTF_8);
        controls.write(OutputSink.Stream.STDERR, e, 0, e.length);
        byte[] m = "1m".getBytes(StandardCharsets.UTF_8);
        controls.write(OutputSink.Stream.STDOUT, m, 0, m.length);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("\u001b[31m");
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("err\n");
    }

    @Test
    void anOverlongOrUnendedSequenceIsNeutralisedNotHeldForever() {
        String longOne = "\u001b[" + "1;".repeat(40) + "m";
        assertThat(through(longOne)).isEqualTo(" " + longOne.substring(1));
        out.reset();
        assertThat(through("end\u001b[31")).as("flushed at the step's end").isEqualTo("end [31");
    }

    /** Offsets the journal records must stay offsets of the raw output: one byte in, one out, and nothing raw escapes. */
    @Test
    void everyByteBecomesOneByteAndNoStrayControlSurvives() {
        Random random = new Random(7);
        byte[] raw = new byte[200_000];
        for (int i = 0; i < raw.length; i++) {
            int r = random.nextInt(10);
            raw[i] = (byte) (r < 2 ? "\u001b[;m0123\r\n".charAt(random.nextInt(10)) : r < 4 ? random.nextInt(32) : random.nextInt(256));
        }
        int at = 0;
        while (at < raw.length) {
            int n = Math.min(raw.length - at, 1 + random.nextInt(64));
            controls.write(OutputSink.Stream.STDOUT, raw, at, n);
            at += n;
        }
        controls.flush();
        byte[] done = out.toByteArray();
        assertThat(done).hasSize(raw.length);
        for (int i = 0; i < done.length; i++) {
            int u = done[i] & 0xff;
            if (u == 0x1b) {
                // an ESC survives only as the start of a whole colour sequence
                int end = i + 2;
                assertThat(done[i + 1]).isEqualTo((byte) '[');
                while (done[end] != 'm') {
                    assertThat((char) done[end]).isIn('0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ';', ':');
                    end++;
                }
            } else {
                assertThat(u < 0x20 && u != '\n' && u != '\t' || u == 0x7f).as("byte %d is %02x", i, u).isFalse();
            }
            if (u == 0xc2 && i + 1 < done.length) {
                assertThat(done[i + 1] & 0xff).as("C1 control at %d", i).matches(v -> v < 0x80 || v > 0x9f);
            }
        }
    }
}
